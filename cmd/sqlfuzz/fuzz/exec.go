package fuzz

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// outcome is what one server answered to one statement, normalised for comparison.
type outcome struct {
	errNum   uint16 // MySQL error number; 0: success
	errMsg   string
	types    []string   // result columns' type names (a query)
	rows     [][]string // result rows; NULL is "NULL", other values as the server wrote them
	query    bool
	affected int64
	warnings int // -1: not read
}

func (o outcome) String() string {
	if o.errNum != 0 {
		return fmt.Sprintf("error %d: %s", o.errNum, o.errMsg)
	}
	w := ""
	if o.warnings > 0 {
		w = fmt.Sprintf(", %d warnings", o.warnings)
	}
	if o.query {
		return fmt.Sprintf("ok, %d rows%s", len(o.rows), w)
	}
	return fmt.Sprintf("ok, %d rows affected%s", o.affected, w)
}

// class is the outcome's class for comparing: success, or the error number.
func (o outcome) class() string {
	if o.errNum == 0 {
		return "ok"
	}
	return fmt.Sprintf("error %d", o.errNum)
}

// conn is one pinned connection to one server: statements of a run see one session.
type conn struct {
	side     side
	c        *sql.Conn
	timeout  time.Duration
	warnings bool
}

// errNotServer marks an error that is not a server's answer (a broken connection, a
// timeout): the run cannot go on comparing.
var errNotServer = errors.New("not a server error")

func (c *conn) run(ctx context.Context, sqlText string, query bool) (outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	o := outcome{query: query, warnings: -1}
	var err error
	if query {
		err = c.read(ctx, sqlText, &o)
	} else {
		var res sql.Result
		if res, err = c.c.ExecContext(ctx, sqlText); err == nil {
			o.affected, err = res.RowsAffected()
		}
	}
	var me *mysql.MySQLError
	switch {
	case err == nil:
	case errors.As(err, &me):
		o.errNum, o.errMsg = me.Number, me.Message
	default:
		return o, fmt.Errorf("%s: %s: %w: %v", c.side, sqlText, errNotServer, err)
	}
	if c.warnings {
		var n int
		if err := c.c.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&n); err != nil {
			return o, fmt.Errorf("%s: read @@warning_count: %w", c.side, err)
		}
		o.warnings = n
	}
	return o, nil
}

func (c *conn) read(ctx context.Context, sqlText string, o *outcome) error {
	rows, err := c.c.QueryContext(ctx, sqlText)
	if err != nil {
		return err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	for _, ct := range cts {
		o.types = append(o.types, ct.DatabaseTypeName())
	}
	raw := make([]sql.RawBytes, len(cts))
	dest := make([]any, len(cts))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		row := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		o.rows = append(o.rows, row)
	}
	return rows.Err()
}

// exec runs a statement that must succeed (setup, resync).
func (c *conn) exec(ctx context.Context, sqlText string) error {
	o, err := c.run(ctx, sqlText, false)
	if err != nil {
		return err
	}
	if o.errNum != 0 {
		return fmt.Errorf("%s: %s: %s", c.side, sqlText, o)
	}
	return nil
}

// normalise rewrites the values of both outcomes' rows so that spellings of one value agree:
// floating-point values (a column either server types FLOAT or DOUBLE) to 6 or 14 significant
// digits with -0 as 0, DECIMAL values without trailing fractional zeros. The servers print
// floats differently (1e300 and 1e+300) and sum them in different orders, and a DECIMAL
// result's scale is the server's choice for AVG and division.
func normalise(a, b *outcome) {
	if len(a.types) != len(b.types) {
		return
	}
	for i := range a.types {
		f := func(o *outcome) {
			for _, row := range o.rows {
				row[i] = normalValue(row[i], a.types[i], b.types[i])
			}
		}
		f(a)
		f(b)
	}
}

func normalValue(v, ta, tb string) string {
	if v == "NULL" {
		return v
	}
	isFloat := func(t string) bool { return t == "FLOAT" || t == "DOUBLE" }
	switch {
	case ta == "FLOAT" || tb == "FLOAT":
		return floatText(v, 6)
	case isFloat(ta) || isFloat(tb):
		return floatText(v, 14)
	case ta == "DECIMAL" || tb == "DECIMAL":
		return decimalText(v)
	}
	return v
}

func floatText(v string, digits int) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'g', digits, 64)
}

func decimalText(v string) string {
	if !strings.Contains(v, ".") || strings.ContainsAny(v, "eE") {
		return v
	}
	v = strings.TrimRight(v, "0")
	v = strings.TrimSuffix(v, ".")
	if v == "-0" || v == "" {
		return "0"
	}
	return v
}

// sortedRows returns the rows in an order of their own, for comparing results whose order
// is not defined.
func sortedRows(rows [][]string) [][]string {
	out := append([][]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool {
		return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00")
	})
	return out
}

func rowText(row []string) string { return "(" + strings.Join(row, ", ") + ")" }
