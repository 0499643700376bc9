package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/config"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Names of the generated certificate and key, beside the config file (MySQL 8's names).
const (
	generatedCertFile = "server-cert.pem"
	generatedKeyFile  = "server-key.pem"
)

// generatedCertValidity is how long a generated certificate is valid (MySQL 8: ten years).
const generatedCertValidity = 10 * 365 * 24 * time.Hour

// Certificates holds the certificate both listeners offer. The TLS handshake reads it through
// GetCertificate, so a reload replaces it for new connections without touching open ones.
type Certificates struct {
	current atomic.Pointer[tls.Certificate]
	// unsaved is set while current is a generated certificate kept in memory only, because the
	// config file's directory is read-only (a Kubernetes ConfigMap, a root-owned directory in a
	// container): later loads keep it instead of generating and logging again.
	unsaved atomic.Bool
	Logger  *slog.Logger
}

// TLSConfig is the TLS configuration of the protocol layer: TLS 1.2 or later, with the current
// certificate.
func (c *Certificates) TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load(), nil
		},
	}
}

// Load reads the configured certificate and key, or the generated ones (generating them at the
// first start), and makes them current. On error the current certificate stays.
func (c *Certificates) Load(cfg *config.Config) error {
	certFile, keyFile, err := certificatePaths(cfg)
	if err != nil {
		return err
	}
	if cfg.TLSCertFile == "" {
		generated, err := generateIfMissing(certFile, keyFile)
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return c.keepUnsaved(err)
		}
		if err != nil {
			return err
		}
		if generated {
			c.Logger.Info("generated a self-signed TLS certificate; set tls_cert_file and tls_key_file to use your own",
				"cert", certFile, "key", keyFile)
		}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate %s with key %s (tls_cert_file, tls_key_file): %w", certFile, keyFile, err)
	}
	c.current.Store(&cert)
	c.unsaved.Store(false)
	return nil
}

// keepUnsaved makes a generated certificate current without saving it, when the directory for
// the generated files cannot be written (writeErr): TLS keeps working, with a new certificate at
// every start. It is generated and logged once; later loads keep it.
func (c *Certificates) keepUnsaved(writeErr error) error {
	if c.unsaved.Load() {
		return nil
	}
	if err := c.InMemory(); err != nil {
		return err
	}
	c.unsaved.Store(true)
	c.Logger.Warn("cannot save a generated TLS certificate beside the config file; using one kept in memory, new at every start: set tls_cert_file and tls_key_file to use your own",
		"err", writeErr)
	return nil
}

// certificatePaths resolves the certificate and key files: configured paths relative to the
// config file's directory, or the generated files beside it. Without a config file there is no
// place for generated files: the caller gets an in-memory certificate instead.
func certificatePaths(cfg *config.Config) (certFile, keyFile string, err error) {
	dir := "."
	if cfg.Path != "" {
		dir = filepath.Dir(cfg.Path)
	}
	if cfg.TLSCertFile != "" {
		return resolve(dir, cfg.TLSCertFile), resolve(dir, cfg.TLSKeyFile), nil
	}
	if cfg.Path == "" {
		return "", "", errors.New("no config file, so no directory for a generated TLS certificate")
	}
	return filepath.Join(dir, generatedCertFile), filepath.Join(dir, generatedKeyFile), nil
}

func resolve(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// generateIfMissing writes a self-signed ECDSA P-256 certificate and its key when neither file
// exists; it reports whether it did. One file without the other is an error, not overwritten.
func generateIfMissing(certFile, keyFile string) (bool, error) {
	certExists, err := exists(certFile)
	if err != nil {
		return false, err
	}
	keyExists, err := exists(keyFile)
	if err != nil {
		return false, err
	}
	switch {
	case certExists && keyExists:
		return false, nil
	case certExists || keyExists:
		return false, fmt.Errorf("only one of %s and %s exists; remove it to generate a new pair, or set tls_cert_file and tls_key_file", certFile, keyFile)
	}
	certPEM, keyPEM, err := selfSigned(time.Now())
	if err != nil {
		return false, err
	}
	if err := writeNew(keyFile, keyPEM, 0o600); err != nil {
		return false, err
	}
	if err := writeNew(certFile, certPEM, 0o644); err != nil {
		os.Remove(keyFile)
		return false, err
	}
	return true, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("TLS file: %w", err)
}

// writeNew creates path with mode perm; it fails if the file exists.
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write generated TLS file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("write generated TLS file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("write generated TLS file %s: %w", path, err)
	}
	return nil
}

// selfSigned returns a new self-signed server certificate and its ECDSA P-256 key, in PEM.
func selfSigned(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("generate TLS certificate serial: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "overloadsql_Auto_Generated_Server_Certificate"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(generatedCertValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("generate TLS certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode TLS key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// InMemory makes a generated certificate current without writing it anywhere: for a server
// without a config file (tests, built-in defaults).
func (c *Certificates) InMemory() error {
	certPEM, keyPEM, err := selfSigned(time.Now())
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("generated TLS certificate: %w", err)
	}
	c.current.Store(&cert)
	return nil
}

// ErrInsecureTransport is MySQL's answer to a login without TLS under require_secure_transport.
func ErrInsecureTransport() error {
	return mysqlerr.New(mysqlerr.ERSecureTransportRequired,
		"Connections using insecure transport are prohibited while --require_secure_transport=ON.")
}

// SetTLSStatus sets the session's Ssl_cipher and Ssl_version status variables (SHOW STATUS LIKE
// 'Ssl_%'), empty for a connection without TLS, as MySQL shows them.
func SetTLSStatus(session *sql.BaseSession, conn *mysql.Conn) error {
	tc := secureSession(conn.Conn)
	if tc == nil {
		return nil
	}
	state := tc.ConnectionState()
	if err := session.SetStatusVariable(nil, "Ssl_cipher", tls.CipherSuiteName(state.CipherSuite)); err != nil {
		return fmt.Errorf("set Ssl_cipher: %w", err)
	}
	if err := session.SetStatusVariable(nil, "Ssl_version", tls.VersionName(state.Version)); err != nil {
		return fmt.Errorf("set Ssl_version: %w", err)
	}
	return nil
}

// secureSession is the TLS session a connection runs over, nil without TLS. TLS is terminated by
// the packet reader (packetConn), below the protocol layer.
func secureSession(c net.Conn) *tls.Conn {
	if p := packetConnOf(c); p != nil {
		return p.secure
	}
	return nil
}

// MarkSecure tells the protocol layer that a connection runs over TLS, which it cannot see
// itself since TLS is terminated below it: caching_sha2_password's full authentication and
// require_secure_transport read this flag.
func MarkSecure(c *mysql.Conn) {
	if secureSession(c.Conn) != nil {
		c.Capabilities |= mysql.CapabilityClientSSL
	}
}
