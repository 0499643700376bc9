package data

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// RENAME TABLE and ALTER TABLE ... RENAME TO, all or nothing as in MySQL.
//
// The engine renames pair by pair, each for good at once (over its in-memory database, whose
// list of tables is outside any transaction; not checked again on the storage), and repoints the
// foreign keys that name a table before it renames the table. So a pair that fails (its table
// missing, its new name taken) leaves the pairs before it renamed, and its own table's foreign
// keys naming a table that is not renamed. An ALTER TABLE that renames and changes more runs its
// parts in the order written: the parts after RENAME TO look for the table under its old name,
// and the statement fails (1146) with the table renamed.
//
// AtomicRenames, an analyzer rule, checks every pair of the statement, in order, against the
// database's tables and views as the pairs before it leave them, and refuses the statement
// before anything changes when one would fail, with MySQL's error (1146, 1050). The check holds
// until the statement runs: a rename is DDL, which runs under the write lock (WriteLock),
// and every statement that changes the catalog takes that lock. In an ALTER TABLE, the rule moves
// the rename after the other changes: those run in the statement's transaction, which the server
// rolls back when the statement fails, and the rename, checked, comes last.
//
// The engine also ignores the database a name is qualified with and renames in the current
// database; RefuseRenameElsewhere refuses a rename that names another one (1235) rather than
// renaming a table of the current database.

// AtomicRenames checks the renames of a RENAME TABLE or ALTER TABLE statement before it runs,
// and puts ALTER TABLE's rename last (see above). It looks at the top of the plan: the engine
// analyzes the statements of a stored procedure one at a time, each just before it runs.
func AtomicRenames(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.RenameTable:
		r, err := newRenameCheck(ctx).check(n)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return r, transform.NewTree, nil
	case *plan.Block:
		// An ALTER TABLE with several changes. A procedure's BEGIN ... END never comes here as a
		// block: the engine's interpreter runs its statements one by one.
		check := newRenameCheck(ctx)
		var others, renames []sql.Node
		for _, child := range n.Children() {
			r, ok := child.(*plan.RenameTable)
			if !ok {
				others = append(others, child)
				continue
			}
			checked, err := check.check(r)
			if err != nil {
				return nil, transform.SameTree, err
			}
			renames = append(renames, checked)
		}
		if len(renames) == 0 {
			return n, transform.SameTree, nil
		}
		block, err := n.WithChildren(ctx, append(others, renames...)...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return block, transform.NewTree, nil
	}
	return n, transform.SameTree, nil
}

// renameCheck follows one statement's renames through the names of one database.
type renameCheck struct {
	ctx *sql.Context
	// named are the names the statement's renames so far gave (the key in lower case, the name
	// as written); freed are the names they took away (lower case).
	named map[string]string
	freed map[string]bool
}

func newRenameCheck(ctx *sql.Context) *renameCheck {
	return &renameCheck{ctx: ctx, named: map[string]string{}, freed: map[string]bool{}}
}

// check returns r with each old name as the database spells it (the engine finds the table in
// any case, but its in-memory database renames only the name as stored), or MySQL's error for
// the first pair that would fail.
func (c *renameCheck) check(r *plan.RenameTable) (*plan.RenameTable, error) {
	checked := *r
	checked.OldNames = make([]string, len(r.OldNames))
	for i, from := range r.OldNames {
		to := r.NewNames[i]
		stored, ok, err := c.find(r.Db, from)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, mysql.NewSQLError(mysql.ERNoSuchTable, mysql.SSUnknownTable, "Table '%s.%s' doesn't exist", r.Db.Name(), from)
		}
		// A new name taken by another table or a view; the table itself may take its name in
		// another case.
		taken, ok, err := c.find(r.Db, to)
		if err != nil {
			return nil, err
		}
		if ok && (taken != stored || taken == to) {
			return nil, mysql.NewSQLError(mysql.ERTableExists, "42S01", "Table '%s' already exists", to)
		}
		checked.OldNames[i] = stored
		delete(c.named, strings.ToLower(stored))
		c.freed[strings.ToLower(stored)] = true
		delete(c.freed, strings.ToLower(to))
		c.named[strings.ToLower(to)] = to
	}
	return &checked, nil
}

// find returns the name as stored of the table or view that name names in db (in any case),
// after the statement's renames so far.
func (c *renameCheck) find(db sql.Database, name string) (stored string, ok bool, err error) {
	key := strings.ToLower(name)
	if n, ok := c.named[key]; ok {
		return n, true, nil
	}
	if c.freed[key] {
		return "", false, nil
	}
	t, ok, err := db.GetTableInsensitive(c.ctx, name)
	if err != nil || ok {
		if t != nil {
			stored = t.Name()
		}
		return stored, ok, err
	}
	if vdb, isViews := db.(sql.ViewDatabase); isViews {
		v, ok, err := vdb.GetViewDefinition(c.ctx, name)
		return v.Name, ok, err
	}
	if v, ok := c.ctx.GetViewRegistry().View(db.Name(), name); ok {
		return v.Name(), true, nil
	}
	return "", false, nil
}

// RefuseRenameElsewhere refuses a rename (RENAME TABLE, ALTER TABLE ... RENAME TO) that names a
// database other than the current one: the engine drops the qualifier and renames in the current
// database, where the name may be another table. It looks at the privilege check's target
// names, the one place where the engine still shows the qualifiers: for each pair, the old
// name's database and name, then the new one's.
func RefuseRenameElsewhere(ctx *sql.Context, auth ast.AuthInformation) error {
	if auth.AuthType != ast.AuthType_RENAME {
		return nil
	}
	current := ctx.GetCurrentDatabase()
	for i := 0; i+1 < len(auth.TargetNames); i += 2 {
		if db := auth.TargetNames[i]; db != "" && !strings.EqualFold(db, current) {
			return mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSClientError,
				"This version of MySQL doesn't yet support 'renaming a table of database %s, or into it, while the current database is %s: USE the table's database, and keep the table in it'",
				db, current)
		}
	}
	return nil
}
