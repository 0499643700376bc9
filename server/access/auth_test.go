package access

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"overloadsql/server/config"

	"github.com/dolthub/vitess/go/mysql"
)

func TestPasswordChecks(t *testing.T) {
	salt := []byte("0123456789abcdefghij")
	plain := newAccount(config.User{Name: "p", Password: "secret"})
	sha := newAccount(config.User{Name: "s", PasswordSHA256Hex: "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"})
	dsha := newAccount(config.User{Name: "d", PasswordDoubleSHA1Hex: "14e65567abdb5135d0cfd9a70b3032c179a49ee7"})
	empty := newAccount(config.User{Name: "e"})
	native := func(pw string) []byte { return mysql.ScrambleMysqlNativePassword(salt, []byte(pw)) }
	caching := func(pw string) []byte { return mysql.ScrambleCachingSha2Password(salt, []byte(pw)) }
	for _, tc := range []struct {
		name  string
		check func(account, []byte, []byte) bool
		a     account
		resp  []byte
		want  bool
	}{
		{"native, plain password", checkNative, plain, native("secret"), true},
		{"native, plain password, wrong", checkNative, plain, native("Secret"), false},
		{"native, double SHA-1", checkNative, dsha, native("secret"), true},
		{"native, double SHA-1, wrong", checkNative, dsha, native("nope"), false},
		{"native, SHA-256 account cannot be checked", checkNative, sha, native("secret"), false},
		{"native, empty password", checkNative, empty, nil, true},
		{"native, empty password given one", checkNative, empty, native("x"), false},
		{"caching_sha2, SHA-256", checkCachingSHA2, sha, caching("secret"), true},
		{"caching_sha2, SHA-256, wrong", checkCachingSHA2, sha, caching("nope"), false},
		{"caching_sha2, plain password", checkCachingSHA2, plain, caching("secret"), true},
		{"caching_sha2, double SHA-1 account cannot be checked", checkCachingSHA2, dsha, caching("secret"), false},
		{"caching_sha2, empty password", checkCachingSHA2, empty, []byte{0}, true},
		{"short response", checkCachingSHA2, sha, []byte{1, 2, 3}, false},
	} {
		if got := tc.check(tc.a, salt, tc.resp); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckAdminPassword(t *testing.T) {
	sha := sha256.Sum256([]byte("s3cret"))
	s1 := sha1.Sum([]byte("native"))
	s2 := sha1.Sum(s1[:])
	auth := NewAccounts([]config.User{
		{Name: "root", Admin: true, Password: "plain"},
		{Name: "ops", Admin: true, PasswordSHA256Hex: hex.EncodeToString(sha[:])},
		{Name: "legacy", Admin: true, PasswordDoubleSHA1Hex: hex.EncodeToString(s2[:])},
		{Name: "open", Admin: true},
		{Name: "app", Password: "plain"},
	})
	tests := []struct {
		user, password string
		want           bool
	}{
		{"root", "plain", true},
		{"root", "plain ", false},
		{"root", "", false},
		{"ops", "s3cret", true},
		{"ops", "S3cret", false},
		{"legacy", "native", true},
		{"legacy", "nativ", false},
		{"open", "", true},
		{"open", "x", false},
		{"app", "plain", false}, // not an admin
		{"nobody", "", false},
	}
	for _, tt := range tests {
		if got := auth.checkAdminPassword(tt.user, tt.password); got != tt.want {
			t.Errorf("checkAdminPassword(%q, %q) = %v, want %v", tt.user, tt.password, got, tt.want)
		}
	}
}
