package integration

import (
	"bytes"
	"context"
	"crypto/tls"
	"database/sql"
	bin "encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Attacks by one client that tried to take the server down: each test is an attack that
// worked before the server bounded it.

// memoryLimit is the address space the memory attacks run the server in: about 1.2 GiB above
// what the idle server reserves, far below what any of the attacks allocated unbounded.
const memoryLimit = 3 << 30

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// stall opens n sockets to addr that never send a byte.
func stall(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.DialTimeout("tcp", addr, dialTimeout)
		if err != nil {
			t.Fatalf("stalled socket %d to %s: %v", len(conns), addr, err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
	}
	return conns
}

// 500 sockets that never answer the greeting on each port: an admin still logs in on the admin
// port, a client on the main port, and every stalled socket is closed within connect_timeout.
// (Before: they held every max_connections slot for good.)
func TestStalledSocketsLockNobodyOut(t *testing.T) {
	s := startServer(t, serverOptions{top: "connect_timeout = 2\nmax_connections = 20\n"})
	stalled := append(stall(t, s.addr, 500), stall(t, s.adminAddr, 500)...)

	admin := s.adminDB()
	if err := admin.Ping(); err != nil {
		t.Fatalf("admin login on admin_listen with 500 stalled sockets: %v", err)
	}
	db := s.db()
	if err := db.Ping(); err != nil {
		t.Fatalf("login on listen with 500 stalled sockets: %v", err)
	}

	// Every stalled socket gets the greeting, then is closed: evicted for a newer connection,
	// or at connect_timeout.
	deadline := time.Now().Add(30 * time.Second)
	for i, c := range stalled {
		_ = c.SetReadDeadline(deadline)
		buf := make([]byte, 4096)
		for {
			_, err := c.Read(buf)
			if err == nil {
				continue
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("stalled socket %d still open 30 s after connect_timeout", i)
			}
			break
		}
	}
	if n := event(t, admin, "ConnectTimeoutClosedConnections"); n < 1 {
		t.Errorf("ConnectTimeoutClosedConnections = %d, want >= 1", n)
	}
	if n := event(t, admin, "HandshakeEvictedConnections"); n < 1 {
		t.Errorf("HandshakeEvictedConnections = %d, want >= 1", n)
	}
	// The main port serves new clients after the flood.
	fresh := s.open("default", "", s.addr)
	defer fresh.Close()
	if err := fresh.Ping(); err != nil {
		t.Errorf("login on listen after the stalled sockets: %v", err)
	}
}

// A header announcing 16 MiB before login is answered with 1153 at once, before its bytes
// arrive; so is a 100 KB user name. (Before: the server reserved 16 MiB per socket and waited.)
func TestPreLoginPacketLimit(t *testing.T) {
	s := startServer(t, serverOptions{})
	for _, addr := range []string{s.addr, s.adminAddr} {
		for i := range 20 {
			c := dialRaw(t, addr)
			c.mustReadPacket()
			if err := c.writeHeader(1, 0xfffffe); err != nil {
				t.Fatal(err)
			}
			if code, msg := c.expectError(); code != 1153 || !strings.Contains(msg, "08S01") {
				t.Fatalf("socket %d to %s: got %d %s, want 1153 (08S01)", i, addr, code, msg)
			}
			if err := c.expectClosed(); err != nil {
				t.Fatalf("socket %d to %s not closed: %v", i, addr, err)
			}
		}
	}
	c := dialRaw(t, s.addr)
	c.mustReadPacket()
	_ = c.writePacket(1, handshakeResponse(strings.Repeat("u", 100_000)))
	if code, msg := c.expectError(); code != 1153 {
		t.Fatalf("100 KB user name: got %d %s, want 1153", code, msg)
	}
	s.alive(t, "oversized handshakes")
	if n := event(t, s.adminDB(), "PacketTooLargeClosedConnections"); n != 41 {
		t.Errorf("PacketTooLargeClosedConnections = %d, want 41", n)
	}
}

// max_allowed_packet: shown as @@max_allowed_packet, a command over it gets 1153 (08S01) as
// soon as its header arrives and the connection is closed; smaller commands are served.
func TestMaxAllowedPacket(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_allowed_packet = 1048576\n"})
	db := s.db()
	if got := queryStrings(t, db, "SELECT @@max_allowed_packet"); got[0] != "1048576" {
		t.Errorf("@@max_allowed_packet = %s, want 1048576", got[0])
	}
	if got := queryStrings(t, db, "SELECT LENGTH(?)", strings.Repeat("x", 900_000)); got[0] != "900000" {
		t.Errorf("a 900 KB parameter: LENGTH = %s", got[0])
	}

	c := rawLogin(t, s.addr, "default")
	if err := c.writeHeader(0, 2<<20); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Write([]byte{0x03, 'S', 'E', 'L'})
	if code, msg := c.expectError(); code != 1153 || !strings.Contains(msg, "Got a packet bigger than 'max_allowed_packet' bytes") {
		t.Fatalf("a 2 MiB COM_QUERY: got %d %s, want 1153", code, msg)
	}

	// Long data of a prepared statement count towards the limit, across packets.
	c = rawLogin(t, s.addr, "default")
	stmt := prepareRaw(t, c, "SELECT ?")
	sendLongData(c, stmt, 600_000, 2)
	if code, msg := c.expectError(); code != 1153 {
		t.Fatalf("1.2 MB of long data: got %d %s, want 1153", code, msg)
	}
	s.alive(t, "oversized packets")
}

// prepareRaw prepares query on a raw connection and returns the statement id.
func prepareRaw(t testing.TB, c *rawConn, query string) uint32 {
	t.Helper()
	if err := c.writePacket(0, append([]byte{0x16}, query...)); err != nil {
		t.Fatal(err)
	}
	_, p := c.mustReadPacket()
	if p[0] != 0 || len(p) < 9 {
		t.Fatalf("prepare %q: %s", query, describePacket(p))
	}
	id := bin.LittleEndian.Uint32(p[1:])
	columns, params := int(bin.LittleEndian.Uint16(p[5:])), int(bin.LittleEndian.Uint16(p[7:]))
	for _, n := range []int{params, columns} {
		if n > 0 {
			for range n + 1 { // definitions, then EOF
				c.mustReadPacket()
			}
		}
	}
	return id
}

// The memory attacks, each of which killed the process, run against a server in a bounded
// address space: each fails cleanly and the server keeps serving.
func TestMemoryAttacksFailCleanly(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit})

	t.Run("200 sockets announcing 16 MiB before login", func(t *testing.T) {
		announceHugePacketsBeforeLogin(t, s.adminAddr, false)
		s.alive(t, "200 sockets announcing 16 MiB")
	})

	t.Run("a 160 MiB COM_QUERY", func(t *testing.T) {
		c := rawLogin(t, s.addr, "default")
		chunk := make([]byte, 0xffffff)
		chunk[0] = 0x03
		for i := 1; i < len(chunk); i++ {
			chunk[i] = ' '
		}
		for seq := range 10 { // 10 maximal packets: 160 MiB
			if c.writePacket(byte(seq), chunk) != nil {
				break
			}
			chunk[0] = ' '
		}
		if code, msg := c.expectError(); code != 1153 {
			t.Errorf("160 MiB COM_QUERY: got %d %s, want 1153", code, msg)
		}
		s.alive(t, "a 160 MiB COM_QUERY")
	})

	t.Run("JSON_ARRAYAGG and JSON_OBJECTAGG of 286 values of 30 MB", func(t *testing.T) {
		db := s.db()
		for _, query := range []string{
			"SELECT LENGTH(JSON_ARRAYAGG(REPEAT('x', 30000000))) FROM information_schema.collations",
			"SELECT LENGTH(JSON_OBJECTAGG(id, REPEAT('x', 30000000))) FROM information_schema.collations",
		} {
			var got sql.NullInt64
			if err := db.QueryRow(query).Scan(&got); err != nil || got.Valid {
				t.Errorf("%s: %v, %v; want NULL", query, got, err)
			}
			s.alive(t, query)
		}
	})

	t.Run("320 MiB of COM_STMT_SEND_LONG_DATA", func(t *testing.T) {
		c := rawLogin(t, s.addr, "default")
		stmt := prepareRaw(t, c, "SELECT LENGTH(?)")
		sendLongData(c, stmt, 1<<20, 320)
		if code, msg := c.expectError(); code != 1153 {
			t.Errorf("320 MiB of long data: got %d %s, want 1153", code, msg)
		}
		s.alive(t, "320 MiB of long data")
	})
}

// After three failed logins from an address, each further answer to it is delayed; a correct
// login from another address is not. (Before: 300 wrong passwords in 0.2 s, no delay.)
func TestFailedLoginsAreDelayed(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := startServer(t, serverOptions{
		top:      "connection_control_min_connection_delay = 300\nconnection_control_max_connection_delay = 300\n",
		sections: appUsers,
	})
	// One admin connection for the whole test: a login from the attacked address would reset it.
	admin, err := s.adminDB().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	login := func(password, from string) (time.Duration, error) {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "app", password, "tcp-from-"+from, s.addr
		cfg.Timeout = 20 * time.Second
		connector, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(connector)
		defer db.Close()
		start := time.Now()
		err = db.Ping()
		return time.Since(start), err
	}
	for _, from := range []string{"127.0.0.1", "127.0.0.2"} {
		local := &net.TCPAddr{IP: net.ParseIP(from)}
		mysql.RegisterDialContext("tcp-from-"+from, func(ctx context.Context, addr string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: local, Timeout: 10 * time.Second}
			return d.DialContext(ctx, "tcp", addr)
		})
	}

	const attempts, workers = 300, 30
	var slow, denied atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= attempts {
				took, err := login("wrong", "127.0.0.1")
				var me *mysql.MySQLError
				if errors.As(err, &me) && me.Number == 1045 {
					denied.Add(1)
				}
				if took >= delay {
					slow.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if denied.Load() != attempts {
		t.Errorf("%d of %d wrong passwords got 1045", denied.Load(), attempts)
	}
	// Only the first attempts, up to the threshold plus those already in flight, are quick.
	if slow.Load() < attempts-workers-3 {
		t.Errorf("%d of %d wrong passwords were delayed by %v, want at least %d", slow.Load(), attempts, delay, attempts-workers-3)
	}
	delayed := event(t, admin, "DelayedLogins")
	if _, err := login("secret", "127.0.0.2"); err != nil {
		t.Fatalf("correct password from another address: %v", err)
	}
	if got := event(t, admin, "DelayedLogins"); got != delayed {
		t.Errorf("a login from another address was delayed (DelayedLogins %d -> %d)", delayed, got)
	}
	// A success from the attacked address is delayed once, then resets it.
	if took, err := login("secret", "127.0.0.1"); err != nil || took < delay {
		t.Errorf("correct password from the attacked address: %v after %v, want success after >= %v", err, took, delay)
	}
	if _, err := login("secret", "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if got := event(t, admin, "DelayedLogins"); got != delayed+1 {
		t.Errorf("DelayedLogins %d, want %d: a success must reset the address", got, delayed+1)
	}
}

// Functions that build big values return NULL with warning 1301 when the result would exceed
// max_allowed_packet, as MySQL does, before building it. (Before: REPEAT and CONCAT of 1e9
// bytes each killed the process.)
func TestBigValuesAreNull(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_allowed_packet = 1048576\n", addressSpace: memoryLimit})
	conn, err := s.db().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, tc := range []struct {
		query, want, function string
	}{
		{"SELECT LENGTH(CONCAT(REPEAT('x', 1e9), REPEAT('y', 1e9)))", "NULL", "repeat"},
		{"SELECT REPEAT('ab', 600000)", "NULL", "repeat"},
		{"SELECT SPACE(2000000)", "NULL", "space"},
		{"SELECT LPAD('x', 2000000, 'y')", "NULL", "lpad"},
		{"SELECT RPAD('x', 2000000, 'y')", "NULL", "rpad"},
		{"SELECT CONCAT(REPEAT('a', 800000), REPEAT('b', 800000))", "NULL", "concat"},
		{"SELECT CONCAT_WS(REPEAT(',', 600000), 'a', 'b', 'c')", "NULL", "concat_ws"},
		{"SELECT REPLACE(REPEAT('a', 500000), 'a', 'bbb')", "NULL", "replace"},
		{"SELECT TO_BASE64(REPEAT('a', 900000))", "NULL", "to_base64"},
		{"SELECT JSON_ARRAY(REPEAT('a', 600000), REPEAT('b', 600000))", "NULL", "json_array"},
		{"SELECT JSON_SET('{}', '$.a', REPEAT('a', 600000), '$.b', REPEAT('b', 600000))", "NULL", "json_set"},
		{"SELECT JSON_ARRAY_APPEND('[]', '$', REPEAT('a', 600000), '$', REPEAT('b', 600000))", "NULL", "json_array_append"},
		{"SELECT JSON_MERGE_PRESERVE(JSON_ARRAY(REPEAT('a', 300000)), JSON_ARRAY(REPEAT('b', 300000)), JSON_ARRAY(REPEAT('c', 300000)), JSON_ARRAY(REPEAT('d', 300000)))", "NULL", "json_merge_preserve"},
		{"SELECT JSON_QUOTE(REPEAT(CHAR(1), 200000))", "NULL", "json_quote"},
		{"SELECT JSON_PRETTY(CONCAT(REPEAT('[', 2000), REPEAT(']', 2000)))", "NULL", "json_pretty"},
		{"SELECT JSON_ARRAYAGG(REPEAT('x', 600000)) FROM (SELECT 1 UNION ALL SELECT 2) t", "NULL", "json_arrayagg"},
		{"SELECT JSON_OBJECTAGG(k, REPEAT('x', 600000)) FROM (SELECT 1 k UNION ALL SELECT 2) t", "NULL", "json_objectagg"},
		{"SELECT LENGTH(JSON_ARRAYAGG(REPEAT('x', 100000))) FROM (SELECT 1 UNION ALL SELECT 2) t", "200008", ""},
		{"SELECT JSON_ARRAYAGG(k) FROM (SELECT 1 k UNION ALL SELECT 2) t", "[1, 2]", ""},
		{"SELECT JSON_OBJECTAGG(k, v) FROM (SELECT 'a' k, 1 v UNION ALL SELECT 'b', 2) t", `{"a": 1, "b": 2}`, ""},
		{"SELECT GROUP_CONCAT(j ORDER BY k) FROM (SELECT k, JSON_ARRAYAGG(v) j FROM (SELECT 1 k, 1 v UNION ALL SELECT 1, 2 UNION ALL SELECT 2, 3) t GROUP BY k) g", "[1, 2],[3]", ""},
		{"SELECT LENGTH(JSON_PRETTY('[[1],[2]]'))", "32", ""},
		{"SELECT LENGTH(REPEAT('ab', 500000))", "1000000", ""},
		{"SELECT LENGTH(LPAD('x', 1000, 'yz'))", "1000", ""},
		{"SELECT REPLACE('banana', 'a', 'oo')", "boonoonoo", ""},
		{"SELECT CONCAT('a', NULL)", "NULL", ""},
	} {
		var got sql.NullString
		if err := conn.QueryRowContext(context.Background(), tc.query).Scan(&got); err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		value := got.String
		if !got.Valid {
			value = "NULL"
		}
		if tc.want == "NULL" && value != "NULL" {
			t.Errorf("%s = %.40q (%d bytes), want NULL", tc.query, value, len(value))
			continue
		}
		if tc.want != "NULL" && value != tc.want {
			t.Errorf("%s = %.40q, want %s", tc.query, value, tc.want)
		}
		warnings := queryStrings(t, conn, "SHOW WARNINGS")
		if tc.function == "" {
			continue
		}
		want := "Warning\t1301\tResult of " + tc.function + "() was larger than max_allowed_packet (1048576) - truncated"
		if len(warnings) == 0 || warnings[0] != want {
			t.Errorf("%s: warnings %q, want %q", tc.query, warnings, want)
		}
	}
	s.alive(t, "functions building big values")
}

// GROUP_CONCAT builds its result up to group_concat_max_len, which may not exceed
// max_allowed_packet. (Before: any value, so one statement could build a value of any size.)
func TestGroupConcatIsBounded(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_allowed_packet = 1048576\n"})
	db, err := s.db().Conn(context.Background()) // one session throughout
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.ExecContext(context.Background(), "SET group_concat_max_len = 1000000000")
	if me := mysqlError(t, err); me.Number != 1231 || !strings.Contains(me.Message, "max_allowed_packet") {
		t.Errorf("SET group_concat_max_len over max_allowed_packet: %v, want 1231", err)
	}
	mustExec(t, db, "SET group_concat_max_len = 1048576")
	mustExec(t, db, "CREATE TABLE main.gc (v LONGTEXT)")
	mustExec(t, db, "INSERT INTO main.gc VALUES (REPEAT('a', 600000)), (REPEAT('b', 600000))")
	if got := queryStrings(t, db, "SELECT LENGTH(GROUP_CONCAT(v)) FROM main.gc"); got[0] != "1048576" {
		t.Errorf("GROUP_CONCAT of 1.2 MB: LENGTH = %s, want 1048576 (cut at group_concat_max_len)", got[0])
	}
}

// One connection may hold at most 16382 prepared statements (MySQL's max_prepared_stmt_count);
// the next COM_STMT_PREPARE gets 1461 and the connection stays usable. (Before: no bound.)
func TestPreparedStatementsAreBounded(t *testing.T) {
	s := startServer(t, serverOptions{})
	c := rawLogin(t, s.addr, "default")
	const limit = 16382
	prepare := []byte("\x16SELECT 1")
	// Pipelined: the writer sends every COM_STMT_PREPARE while the reader takes the answers.
	written := make(chan error, 1)
	go func() {
		for range limit + 1 {
			if err := c.writePacket(0, prepare); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	for i := range limit + 1 {
		_, p := c.mustReadPacket()
		if code := errCode(p); code != 0 {
			if i != limit || code != 1461 {
				t.Fatalf("prepare %d: %s, want the error at %d with 1461", i, describePacket(p), limit)
			}
			break
		}
		if i == limit {
			t.Fatalf("prepare %d succeeded, want 1461", i)
		}
		c.mustReadPacket() // the column definition
		c.mustReadPacket() // EOF
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if err := c.writePacket(0, []byte{0x0e}); err != nil { // COM_PING: still served
		t.Fatal(err)
	}
	if _, p := c.mustReadPacket(); p[0] != 0 {
		t.Errorf("ping after the refused prepare: %s", describePacket(p))
	}
}

// The packet limits hold over TLS too: the packet reader terminates TLS itself and reads the
// plain packets. (Before: after an SSL request the reader saw only TLS records, so every one of
// these reached the protocol layer: 16 MiB reserved per header before login, no
// max_allowed_packet, no long-data cap, and the malformed commands panicked it again.)
func TestTLSPacketLimits(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_allowed_packet = 1048576\n"})

	t.Run("a header announcing 16 MiB before login", func(t *testing.T) {
		c := dialRawTLS(t, s.addr)
		if err := c.writeHeader(2, 0xfffffe); err != nil {
			t.Fatal(err)
		}
		if code, msg := c.expectError(); code != 1153 || !strings.Contains(msg, "08S01") {
			t.Fatalf("got %d %s, want 1153 (08S01)", code, msg)
		}
	})

	t.Run("a malformed handshake response", func(t *testing.T) {
		c := dialRawTLS(t, s.addr)
		p := sslHandshakeResponse("default")
		p[2] |= 0x20 // CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA, then a length far beyond the packet
		i := 32 + len("default") + 1
		p = append(p[:i:i], 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)
		_ = c.writePacket(2, p)
		if code, msg := c.expectError(); code != 1043 {
			t.Fatalf("got %d %s, want 1043", code, msg)
		}
	})

	t.Run("a 2 MiB COM_QUERY", func(t *testing.T) {
		c := rawLoginTLS(t, s.addr, "default")
		if err := c.writeHeader(0, 2<<20); err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte{0x03, 'S', 'E', 'L'})
		if code, msg := c.expectError(); code != 1153 {
			t.Fatalf("got %d %s, want 1153", code, msg)
		}
	})

	t.Run("1.2 MB of long data", func(t *testing.T) {
		c := rawLoginTLS(t, s.addr, "default")
		stmt := prepareRaw(t, c, "SELECT COUNT(*) FROM system.metrics WHERE metric = ?")
		sendLongData(c, stmt, 600_000, 2)
		if code, msg := c.expectError(); code != 1153 {
			t.Fatalf("got %d %s, want 1153", code, msg)
		}
	})

	t.Run("an unknown command and an unknown statement", func(t *testing.T) {
		c := rawLoginTLS(t, s.addr, "default")
		for _, tc := range []struct {
			payload []byte
			code    int
		}{
			{[]byte{0x63, 1, 2, 3}, 1047},
			{[]byte{}, 1047},
			{[]byte{0x1a, 9, 9, 9, 9}, 1243},
		} {
			if err := c.writePacket(0, tc.payload); err != nil {
				t.Fatal(err)
			}
			if _, p := c.mustReadPacket(); errCode(p) != tc.code {
				t.Errorf("command % x: %s, want error %d", tc.payload, describePacket(p), tc.code)
			}
		}
		if err := c.writePacket(0, []byte{0x0e}); err != nil { // COM_PING: still served
			t.Fatal(err)
		}
		if _, p := c.mustReadPacket(); p[0] != 0 {
			t.Errorf("ping after the refused commands: %s", describePacket(p))
		}
	})
	s.alive(t, "oversized and malformed packets over TLS")
}

// 200 sockets that each announce 16 MiB after the TLS handshake, before login, with the server
// in a bounded address space: each gets 1153 or is closed, and the server keeps serving.
// (Before: each reserved 16 MiB; together more than the address space.)
func TestTLSPreLoginMemory(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit,
		top: "max_connections = 300\nmax_unauthenticated_connections = 300\n"})
	announceHugePacketsBeforeLogin(t, s.addr, true)
	s.alive(t, "200 sockets announcing 16 MiB over TLS")
}

// connect_timeout also closes a socket that sent the SSL request and then stalls the TLS
// handshake, and one that finished it but never logs in.
func TestTLSConnectTimeout(t *testing.T) {
	s := startServer(t, serverOptions{top: "connect_timeout = 2\n"})
	stalled := dialRaw(t, s.addr)
	stalled.mustReadPacket()
	if err := stalled.writePacket(1, sslHandshakeResponse("")[:32]); err != nil {
		t.Fatal(err)
	}
	silent := dialRawTLS(t, s.addr)
	for name, c := range map[string]*rawConn{"stalled TLS handshake": stalled, "no login after TLS": silent} {
		start := time.Now()
		if err := c.expectClosed(); isTimeout(err) {
			t.Errorf("%s: not closed: %v", name, err)
		} else if d := time.Since(start); d > 15*time.Second {
			t.Errorf("%s: closed after %v, want about connect_timeout", name, d)
		}
	}
}

// Statements whose rows are too big for memory, with the server in a bounded address space and
// max_server_memory_usage = 512 MiB (the address space also holds what the Go runtime keeps
// mapped after it freed it, so the limit leaves room for that): each is cancelled with error 1041 when the heap crosses the
// limit, the server stays up, the admin listener answers, and ordinary statements run again once
// the heap is back under 90% of the limit. (Before: the engine buffered up to 640 rows of 60 MB,
// a sort, a grouping, a window, CREATE TABLE ... AS SELECT and INSERT ... SELECT all of them,
// and the process died.)
func TestMemoryLimitCancelsStatements(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit, top: "max_server_memory_usage = 536870912\n"})
	db, admin := s.db(), s.adminDB()
	for _, c := range []struct{ name, query string }{
		{"60 MB rows", "SELECT REPEAT('x', 60000000) FROM information_schema.collations"},
		{"60 MB rows sorted", "SELECT REPEAT('x', 60000000) AS v, id FROM information_schema.collations ORDER BY v, id"},
		{"60 MB rows grouped", "SELECT REPEAT('x', 60000000) AS v, COUNT(*) FROM information_schema.collations GROUP BY id"},
		{"60 MB rows in a window", "SELECT REPEAT('x', 60000000) AS v, ROW_NUMBER() OVER (ORDER BY id) FROM information_schema.collations"},
		{"60 MB rows stored", "CREATE TABLE main.t AS SELECT REPEAT('x', 60000000) AS v FROM information_schema.collations"},
		{"60 MB rows inserted", "INSERT INTO main.t2 SELECT REPEAT('x', 60000000) FROM information_schema.collations"},
	} {
		if strings.HasPrefix(c.query, "INSERT") {
			if _, err := db.Exec("CREATE TABLE main.t2 (v LONGTEXT)"); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(c.name, func(t *testing.T) {
			before := event(t, admin, "MemoryLimitExceededQueries")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rows, err := db.QueryContext(ctx, c.query)
			for err == nil && rows.Next() {
			}
			if err == nil {
				err = rows.Err()
				rows.Close()
			}
			var me *mysql.MySQLError
			// A writing statement's rows are in its transaction's batch, in the heap: it stops at
			// the memory limit (1041) or at the storage's bound of a transaction (1197), whichever
			// comes first (docs/storage.md).
			tooLarge := errors.As(err, &me) && me.Number == 1197 && !strings.HasPrefix(c.query, "SELECT")
			if !tooLarge && (!errors.As(err, &me) || me.Number != 1041 || !strings.Contains(me.Message, "max_server_memory_usage")) {
				t.Errorf("%s: got %v, want error 1041 naming max_server_memory_usage", c.query, err)
			}
			s.alive(t, c.query)
			var one int
			if err := admin.QueryRow("SELECT 1").Scan(&one); err != nil {
				t.Errorf("admin listener after %s: %v", c.name, err)
			}
			if got := event(t, admin, "MemoryLimitExceededQueries"); got <= before && !tooLarge {
				t.Errorf("MemoryLimitExceededQueries: %d before, %d after", before, got)
			}
			ordinaryRunsAgain(t, db)
		})
	}
	// The writing statements stopped before their rows were stored: the engine discarded them,
	// and the stopped CREATE TABLE ... AS SELECT left no table, as in MySQL.
	var stored int
	if err := admin.QueryRow("SELECT COUNT(*) FROM main.t2").Scan(&stored); err != nil || stored != 0 {
		t.Errorf("main.t2 after the stopped INSERT ... SELECT: %d rows, %v; want 0", stored, err)
	}
	if err := admin.QueryRow("SELECT COUNT(*) FROM main.t").Scan(&stored); err == nil {
		t.Errorf("main.t exists after the stopped CREATE TABLE ... AS SELECT, with %d rows; want no table", stored)
	}
}

// TestStoredDataOverTheMemoryLimit: stored data is on disk (docs/storage.md), not in the heap,
// so 572 MiB of rows stored under a 512 MiB limit leave ordinary statements running. It has a
// server of its own: the address space a server keeps mapped after the attacks of
// TestMemoryLimitCancelsStatements left too little of the cap for the storage's memtables.
func TestStoredDataOverTheMemoryLimit(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit, top: "max_server_memory_usage = 536870912\n"})
	db, admin := s.db(), s.adminDB()
	if _, err := db.Exec("CREATE TABLE main.s (id INT PRIMARY KEY, v LONGTEXT)"); err != nil {
		t.Fatal(err)
	}
	// 60 rows of 10 MB, stored by an admin on the admin listener, which the memory guard neither
	// stops nor refuses.
	for id := range 60 {
		if _, err := admin.Exec("INSERT INTO main.s VALUES (?, REPEAT('y', 10000000))", id); err != nil {
			t.Fatalf("admin insert %d: %v", id, err)
		}
	}
	s.alive(t, "572 MiB stored")
	ordinaryRunsAgain(t, db)
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM main.s WHERE id >= 0").Scan(&n); err != nil || n != 60 {
		t.Errorf("rows stored: %d, %v; want 60", n, err)
	}
}

// ordinaryRunsAgain waits until an ordinary statement runs again (the heap is back under 90% of
// the memory limit), failing after 60 s.
func ordinaryRunsAgain(t *testing.T, db *sql.DB) {
	t.Helper()
	eventually(t, 60*time.Second, "an ordinary statement runs again", func() (bool, string) {
		var one int
		err := db.QueryRow("SELECT 1").Scan(&one)
		return err == nil, fmt.Sprint(err)
	})
}

// announceHugePacketsBeforeLogin opens 200 sockets to addr that each announce a 16 MiB packet
// before logging in (after the TLS handshake when overTLS) and checks that each gets error
// 1153 or is closed, none is left without an answer, and at least one is answered. A socket
// may be closed before it is served: only max_unauthenticated_connections wait in their
// handshake at once.
func announceHugePacketsBeforeLogin(t *testing.T, addr string, overTLS bool) {
	t.Helper()
	var wg sync.WaitGroup
	var answered, closed atomic.Int64
	for range 200 {
		c := dialRaw(t, addr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.readPacket(); err != nil {
				closed.Add(1)
				return
			}
			seq := byte(1)
			if overTLS {
				if c.writePacket(seq, sslHandshakeResponse("")[:32]) != nil {
					closed.Add(1)
					return
				}
				tc := tls.Client(c.Conn, &tls.Config{InsecureSkipVerify: true})
				_ = tc.SetDeadline(time.Now().Add(rawTimeout))
				if tc.Handshake() != nil {
					closed.Add(1)
					return
				}
				c, seq = &rawConn{t: t, Conn: tc}, 2
			}
			if c.writeHeader(seq, 0xfffffe) != nil {
				closed.Add(1)
				return
			}
			_, p, err := c.readPacket()
			switch {
			case err == nil && errCode(p) == 1153:
				answered.Add(1)
			case err != nil && !isTimeout(err):
				closed.Add(1)
			}
		}()
	}
	wg.Wait()
	if answered.Load()+closed.Load() != 200 || answered.Load() == 0 {
		t.Errorf("of 200 sockets, %d got error 1153 and %d were closed; the rest got no answer", answered.Load(), closed.Load())
	}
}

// sendLongData sends n COM_STMT_SEND_LONG_DATA packets of size bytes each for parameter 0 of
// stmt, stopping at the first write the server refuses (it may close the connection).
func sendLongData(c *rawConn, stmt uint32, size, n int) {
	chunk := append([]byte{0x18}, bin.LittleEndian.AppendUint32(nil, stmt)...)
	chunk = append(chunk, 0, 0)
	chunk = append(chunk, bytes.Repeat([]byte{'d'}, size)...)
	for range n {
		if c.writePacket(0, chunk) != nil {
			return
		}
	}
}
