package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"overloadsql/mysqlerr"

	vmysql "github.com/dolthub/vitess/go/mysql"
	"github.com/go-sql-driver/mysql"
)

// MySQL error numbers the server uses to shed load.
const (
	errServerOverloaded           = mysqlerr.ERServerOverloaded           // statement rejected
	errTooManySimultaneousQueries = mysqlerr.ERTooManySimultaneousQueries // statement got no CPU slot (admission control)
	errTooManyConnection          = vmysql.ERConCount                     // connection dropped before the handshake
)

const (
	benchUser        = "default" // the built-in admin user, empty password
	statementTimeout = 60 * time.Second
)

// clientConfig is the driver configuration of one connection to addr as the default user.
func clientConfig(addr string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = benchUser, "tcp", addr
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, statementTimeout, 10*time.Second
	return cfg
}

// openPool returns a pool of at most size connections to addr.
func openPool(addr string, size int) (*sql.DB, error) {
	connector, err := mysql.NewConnector(clientConfig(addr))
	if err != nil {
		return nil, fmt.Errorf("connector for %s: %w", addr, err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(size)
	db.SetMaxIdleConns(size)
	return db, nil
}

func pingOnce(ctx context.Context, addr string) error {
	db, err := openPool(addr, 1)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// sessions opens n dedicated connections of db and runs setup on each, so that every worker
// keeps one session with its own settings for the whole scenario.
func sessions(ctx context.Context, db *sql.DB, n int, setup ...string) ([]*sql.Conn, error) {
	conns := make([]*sql.Conn, 0, n)
	for range n {
		c, err := db.Conn(ctx)
		if err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("open session: %w", err)
		}
		conns = append(conns, c)
		for _, stmt := range setup {
			if _, err := c.ExecContext(ctx, stmt); err != nil {
				closeAll(conns)
				return nil, fmt.Errorf("%s: %w", stmt, err)
			}
		}
	}
	return conns, nil
}

func closeAll(conns []*sql.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

// queryInt runs a statement that returns one integer on c. The driver's read timeout
// (statementTimeout) bounds it; no per-statement context keeps the client's own cost low.
func queryInt(ctx context.Context, c *sql.Conn, query string) (int64, error) {
	var n int64
	if err := c.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", query, err)
	}
	return n, nil
}

// mysqlErrorNumber returns the server error number inside err, or 0.
func mysqlErrorNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}
