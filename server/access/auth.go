package access

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"

	"overloadsql/mysqlerr"
	"overloadsql/server/config"
	"overloadsql/server/wire"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// account is a configured user with the hashes the two MySQL password plugins need.
type account struct {
	name  string
	admin bool
	// empty: the account has no password.
	empty bool
	// doubleSHA1 = SHA1(SHA1(password)) verifies mysql_native_password; nil when unknown.
	doubleSHA1 []byte
	// sha256 = SHA256(password) verifies caching_sha2_password's fast path; nil when unknown.
	sha256 []byte
}

func newAccount(u config.User) account {
	a := account{name: u.Name, admin: u.Admin}
	switch {
	case u.PasswordSHA256Hex != "":
		a.sha256, _ = hex.DecodeString(u.PasswordSHA256Hex)
	case u.PasswordDoubleSHA1Hex != "":
		a.doubleSHA1, _ = hex.DecodeString(u.PasswordDoubleSHA1Hex)
	case u.Password == "":
		a.empty = true
	default:
		s1 := sha1.Sum([]byte(u.Password))
		s2 := sha1.Sum(s1[:])
		a.doubleSHA1 = s2[:]
		s := sha256.Sum256([]byte(u.Password))
		a.sha256 = s[:]
	}
	return a
}

// Accounts are the users of config.toml, and the check of a login against them: Accounts
// checks passwords with mysql_native_password (plain or double-SHA1 passwords) and
// caching_sha2_password (plain or SHA-256 passwords: the fast path checks the scramble against
// the stored SHA-256; when it does not match, full authentication asks for the password itself,
// which the protocol layer allows only over TLS, as MySQL does), refuses logins without TLS
// under require_secure_transport, and keeps non-admins off the admin listener.
type Accounts struct {
	accounts map[string]account
	// Delays delays the answers to an address after its failed logins; nil: never.
	Delays *LoginDelays
	// RequireSecure reports whether require_secure_transport is ON; nil: never.
	RequireSecure func() bool
}

var _ mysql.AuthServer = (*Accounts)(nil)

// NewAccounts are the accounts of users.
func NewAccounts(users []config.User) *Accounts {
	s := &Accounts{accounts: make(map[string]account, len(users))}
	for _, u := range users {
		s.accounts[u.Name] = newAccount(u)
	}
	return s
}

func (s *Accounts) AuthMethods() []mysql.AuthMethod {
	return []mysql.AuthMethod{
		method{mysql.NewMysqlNativeAuthMethod(nativeStorage{s}, nativeStorage{s}), s, nativeStorage{s}.HandleUser},
		// The fast path of caching_sha2_password needs no secure channel (it never sees the
		// password), so this method does not ask for TLS the way the protocol layer's does;
		// the protocol layer asks for TLS before full authentication sends the password.
		method{mysql.NewSha2CachingAuthMethod(cachingStorage{s}, cachingStorage{s}, cachingStorage{s}), s, cachingStorage{s}.HandleUser},
	}
}

// DefaultAuthMethodDescription is the plugin the greeting offers: MySQL 8's default,
// caching_sha2_password. A client that follows it logs in to a SHA-256 account without an auth
// switch (PyMySQL 1.0.2 keeps the salt's NUL after a switch to caching_sha2_password and fails);
// a double-SHA-1 account is switched to mysql_native_password, and a client that answers the
// greeting with mysql_native_password (npm mysql) is taken at its word when the account allows.
func (s *Accounts) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.CachingSha2Password
}

// IsAdmin reports whether user is a configured admin.
func (s *Accounts) IsAdmin(user string) bool {
	a, ok := s.accounts[user]
	return ok && a.admin
}

func (s *Accounts) lookup(user string) (account, error) {
	a, ok := s.accounts[user]
	if !ok {
		return account{}, accessDenied(user)
	}
	return a, nil
}

// method is a password method of the protocol layer that says itself which accounts it can
// check, and whose success stands only if a non-admin did not come in through admin_listen.
type method struct {
	mysql.AuthMethod
	s       *Accounts
	handles func(user string, remote net.Addr) bool
}

func (m method) HandleUser(c *mysql.Conn, user string) bool { return m.handles(user, c.RemoteAddr()) }

// HandleAuthPluginData checks a login. An address with repeated failures waits first (see
// LoginDelays); a success ends the connection's pre-login limits.
func (m method) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, remote net.Addr) (mysql.Getter, error) {
	wire.MarkSecure(c)
	addr := hostOf(remote)
	if m.s.Delays != nil {
		m.s.Delays.wait(addr)
	}
	g, err := m.check(c, user, serverData, clientData, remote)
	if m.s.Delays != nil {
		m.s.Delays.record(addr, err == nil)
	}
	if err != nil {
		return nil, err
	}
	wire.MarkAuthenticated(c.Conn)
	return g, nil
}

func (m method) check(c *mysql.Conn, user string, serverData, clientData []byte, remote net.Addr) (mysql.Getter, error) {
	if m.s.RequireSecure != nil && m.s.RequireSecure() && !c.TLSEnabled() {
		return nil, wire.ErrInsecureTransport()
	}
	g, err := m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, remote)
	if err != nil {
		return nil, err
	}
	if !m.s.IsAdmin(user) && wire.IsAdminConn(c.Conn) {
		return nil, mysqlerr.New(mysql.ERSpecifiedAccessDenied,
			"Access denied for user '%s': admin_listen accepts admin users only; use the main listener", mysqlerr.Clipped(user, mysqlerr.QuotedUser))
	}
	return g, nil
}

func userOf(a account, remote net.Addr) mysql.Getter {
	return sql.MysqlConnectionUser{User: a.name, Host: hostOf(remote)}
}

func accessDenied(user string) error {
	return mysqlerr.New(mysql.ERAccessDeniedError, "Access denied for user '%v'", mysqlerr.Clipped(user, mysqlerr.QuotedUser))
}

func hostOf(addr net.Addr) string {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

type nativeStorage struct{ s *Accounts }

// HandleUser says whether mysql_native_password can check the user: it needs the double SHA-1
// (a SHA-256 account is switched to caching_sha2_password). Unknown users are handled, and
// refused with 1045 like a wrong password.
func (n nativeStorage) HandleUser(user string, _ net.Addr) bool {
	a, ok := n.s.accounts[user]
	return !ok || a.empty || a.doubleSHA1 != nil
}

func (n nativeStorage) UserEntryWithHash(_ *mysql.Conn, salt []byte, user string, response []byte, remote net.Addr) (mysql.Getter, error) {
	a, err := n.s.lookup(user)
	if err != nil {
		return nil, err
	}
	if !checkNative(a, salt, response) {
		return nil, accessDenied(user)
	}
	return userOf(a, remote), nil
}

type cachingStorage struct{ s *Accounts }

// HandleUser says whether caching_sha2_password can check the user: it needs the SHA-256.
func (c cachingStorage) HandleUser(user string, _ net.Addr) bool {
	a, ok := c.s.accounts[user]
	return !ok || a.empty || a.sha256 != nil
}

func (c cachingStorage) UserEntryWithCacheHash(_ *mysql.Conn, salt []byte, user string, response []byte, remote net.Addr) (mysql.Getter, mysql.CacheState, error) {
	a, err := c.s.lookup(user)
	if err != nil {
		return nil, mysql.AuthRejected, err
	}
	if !checkCachingSHA2(a, salt, response) {
		// As MySQL: a scramble that does not match leads to full authentication, where the
		// client sends the password itself; the protocol layer refuses that without TLS.
		return nil, mysql.AuthNeedMoreData, nil
	}
	return userOf(a, remote), mysql.AuthAccepted, nil
}

// UserEntryWithPassword checks the password that full authentication of caching_sha2_password
// received over TLS.
func (c cachingStorage) UserEntryWithPassword(_ *mysql.Conn, user, password string, remote net.Addr) (mysql.Getter, error) {
	a, err := c.s.lookup(user)
	if err != nil {
		return nil, err
	}
	if !checkPassword(a, password) {
		return nil, accessDenied(user)
	}
	return userOf(a, remote), nil
}

// checkPassword compares a password in clear with the account's stored hash.
func checkPassword(a account, password string) bool {
	switch {
	case a.empty:
		return password == ""
	case a.sha256 != nil:
		got := sha256.Sum256([]byte(password))
		return subtle.ConstantTimeCompare(got[:], a.sha256) == 1
	case a.doubleSHA1 != nil:
		s1 := sha1.Sum([]byte(password))
		got := sha1.Sum(s1[:])
		return subtle.ConstantTimeCompare(got[:], a.doubleSHA1) == 1
	}
	return false
}

func checkNative(a account, salt, response []byte) bool {
	if a.empty {
		return len(response) == 0
	}
	if a.doubleSHA1 == nil || len(response) != sha1.Size {
		return false
	}
	// response = SHA1(pw) XOR SHA1(salt + SHA1(SHA1(pw)))
	h := sha1.New()
	h.Write(salt)
	h.Write(a.doubleSHA1)
	mask := h.Sum(nil)
	stage1 := make([]byte, sha1.Size)
	for i := range stage1 {
		stage1[i] = response[i] ^ mask[i]
	}
	got := sha1.Sum(stage1)
	return subtle.ConstantTimeCompare(got[:], a.doubleSHA1) == 1
}

func checkCachingSHA2(a account, salt, response []byte) bool {
	if a.empty {
		return len(response) == 0 || bytes.Equal(response, []byte{0})
	}
	if a.sha256 == nil || len(response) != sha256.Size {
		return false
	}
	// response = SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + salt)
	inner := sha256.Sum256(a.sha256)
	h := sha256.New()
	h.Write(inner[:])
	h.Write(salt)
	mask := h.Sum(nil)
	expected := make([]byte, sha256.Size)
	for i := range expected {
		expected[i] = a.sha256[i] ^ mask[i]
	}
	return subtle.ConstantTimeCompare(expected, response) == 1
}

// checkAdminPassword reports whether password is the password of user and user is an admin:
// HTTP basic auth of /dashboard and /history. Digests are compared in constant time, and the
// same work is done for an unknown user.
func (s *Accounts) checkAdminPassword(user, password string) bool {
	a, known := s.accounts[user]
	s1 := sha1.Sum([]byte(password))
	s2 := sha1.Sum(s1[:])
	s256 := sha256.Sum256([]byte(password))
	var match bool
	switch {
	case !known:
	case a.empty:
		match = subtle.ConstantTimeEq(int32(min(len(password), 1)), 0) == 1
	case a.sha256 != nil:
		match = subtle.ConstantTimeCompare(s256[:], a.sha256) == 1
	case a.doubleSHA1 != nil:
		match = subtle.ConstantTimeCompare(s2[:], a.doubleSHA1) == 1
	}
	return match && a.admin
}

// CheckHTTPAdmin is checkAdminPassword for HTTP basic auth from remoteAddr (host:port): an
// address with repeated failures waits first, as for MySQL logins (connection_control_*
// settings; the failures of both count together).
func (s *Accounts) CheckHTTPAdmin(user, password, remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	if s.Delays != nil {
		s.Delays.wait(host)
	}
	ok := s.checkAdminPassword(user, password)
	if s.Delays != nil {
		s.Delays.record(host, ok)
	}
	return ok
}
