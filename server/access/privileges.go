package access

// The privilege model, in one place. Users come from config.toml ([[users]], admin = true or
// false); there are no GRANTs. What each kind of user may do:
//
//	what                                                       admin  non-admin  not logged in
//	SELECT/INSERT/UPDATE/DELETE, CREATE/ALTER/DROP/INDEX        yes    main.*     no
//	  TABLE, CREATE VIEW (also temporary tables, LOCK TABLES,
//	  REFERENCES)
//	read system.* and information_schema.*                      yes    yes        no
//	SET [SESSION] of a variable (own session only)               yes    yes (1)    no
//	SET GLOBAL / SET PERSIST / SET PERSIST_ONLY of any variable  yes    1227       no
//	  (overloadsql's and the engine's: autocommit, sql_mode, ...)
//	simulation variables (simulated_*), SYSTEM RELOAD CONFIG,    yes    1227       no
//	  TRUNCATE system.warnings
//	SHOW PROCESSLIST, information_schema.processlist             all    own rows   no
//	KILL [QUERY | CONNECTION] id                                 any    own (1095) no
//	CREATE TRIGGER / PROCEDURE / FUNCTION / EVENT                yes    1142/1044  no
//	CREATE DATABASE, and everything in the databases it makes    yes    1044       no
//	DROP DATABASE                                                (2)    1044       no
//	CREATE/ALTER/DROP/RENAME USER, GRANT, REVOKE, roles          1227   1227       no
//	SELECT ... INTO OUTFILE/DUMPFILE, LOAD DATA, LOAD_FILE()     (3)    1227 (3)   no
//	admin_listen                                                 yes    1227       no
//
// (1) within [constraints.<setting>] for overloadsql's session settings (error 1231); a SET_VAR
// hint that breaks a constraint is ignored with a warning, as MySQL ignores invalid hints.
// (2) main and system cannot be dropped by anyone (1044), and nor can mysql and
// information_schema; an admin may drop the databases made with CREATE DATABASE.
// (3) refused for everyone with 1290 while secure_file_priv is "" (the default); when it names a
// directory, only admins may use them, and only on files inside it (symbolic links and ".."
// resolved first); LOAD DATA LOCAL reads the client's file and is refused with 3948.
//
// Stored code runs with the rights of whoever runs it (the engine has no definer rights), so
// only admins may create triggers, procedures and events: a non-admin's trigger would otherwise
// run an admin's privileges on the admin's next INSERT. Views hold one SELECT and are read with
// the reader's rights; a view that calls LOAD_FILE cannot be created by a non-admin.
//
// Where the rules live: the engine's privilege tables hold the grants (GrantPrivileges), and the
// engine checks them while it builds a plan; Authorization gives its refusals MySQL's error
// numbers. What the engine does not check (variable scopes, databases, users, KILL, files) is
// checked on the finished plan by PlanCheck, just before it runs: every statement passes there,
// whether it came as text, as a prepared statement, or inside a stored routine. Errors:
// 1227 (42000) for a global privilege, 1044 (42000) for a database, 1142 (42000) for a table.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"overloadsql/engine"
	"overloadsql/mysqlerr"
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// errUsersInConfigMessage is why account statements are refused.
const errUsersInConfigMessage = "users are defined in config.toml (restart to change)"

// MainDatabase is the database every user may use; it is created with the store.
const MainDatabase = "main"

// protectedDatabases cannot be dropped by anyone.
var protectedDatabases = []string{MainDatabase, "system", "mysql", "information_schema"}

// GrantPrivileges mirrors the accounts in the engine's privilege tables: admins get everything;
// other users get the rights on main of the table above and read system.
func GrantPrivileges(db *mysql_db.MySQLDb, users []config.User) {
	ed := db.Editor()
	defer ed.Close()
	db.SetEnabled(true)
	// The accounts live in config.toml: nothing of the privilege tables is stored. Without a
	// persister, FLUSH PRIVILEGES (which stores them) dereferenced nil in the engine.
	db.SetPersister(&mysql_db.NoopPersister{})
	for _, u := range users {
		ps := mysql_db.NewPrivilegeSetWithAllPrivileges()
		if !u.Admin {
			ps = mysql_db.NewPrivilegeSet()
			ps.AddDatabase(MainDatabase,
				sql.PrivilegeType_Select, sql.PrivilegeType_Insert, sql.PrivilegeType_Update, sql.PrivilegeType_Delete,
				sql.PrivilegeType_Create, sql.PrivilegeType_Drop, sql.PrivilegeType_Alter, sql.PrivilegeType_Index,
				sql.PrivilegeType_CreateView, sql.PrivilegeType_ShowView, sql.PrivilegeType_CreateTempTable,
				sql.PrivilegeType_LockTables, sql.PrivilegeType_References)
			ps.AddDatabase("system", sql.PrivilegeType_Select)
		}
		ed.PutUser(&mysql_db.User{
			User:         u.Name,
			Host:         "%",
			PrivilegeSet: ps,
			Plugin:       "mysql_native_password",
			IsSuperUser:  u.Admin,
			IsEphemeral:  true,
		})
	}
}

// userHost is how MySQL names the user of a session in its errors: 'app'@'127.0.0.1'.
func userHost(ctx *sql.Context) string {
	c := ctx.Session.Client()
	return "'" + c.User + "'@'" + c.Address + "'"
}

func errGlobalPrivilege(privilege string) error {
	return mysqlerr.New(mysql.ERSpecifiedAccessDenied,
		"Access denied; you need (at least one of) the %s privilege(s) for this operation", privilege)
}

// ErrDatabaseDenied is MySQL's 1044 for the session's user and database db; why, if not "",
// follows the database's name.
func ErrDatabaseDenied(ctx *sql.Context, db, why string) error {
	return mysqlerr.New(mysql.ERDBAccessDenied,
		"Access denied for user %s to database '%s'%s", userHost(ctx), db, why)
}

func errTableDenied(ctx *sql.Context, command, table string) error {
	return mysqlerr.New(mysqlerr.ERTableAccessDenied,
		"%s command denied to user %s for table '%s'", command, userHost(ctx), table)
}

func errSecureFilePriv() error {
	return mysqlerr.New(mysql.EROptionPreventsStatement,
		"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement")
}

// Authorization is the engine's own privilege check with MySQL's error numbers (the engine
// answers 1105 for every refusal). Two statements it refuses are allowed here and checked by
// PlanCheck instead, because MySQL allows them on one's own connections: SHOW PROCESSLIST (the
// engine's PROCESS check; non-admins see only their own rows) and KILL (the engine's SUPER check;
// non-admins may kill only their own connections). PROCESS and SUPER are used by nothing else.
// Allowed, when set, is asked about every check the engine allows, and may still refuse it.
type Authorization struct {
	sql.AuthorizationHandler
	Allowed func(ctx *sql.Context, auth ast.AuthInformation) error
}

func (h Authorization) HandleAuth(ctx *sql.Context, aqs sql.AuthorizationQueryState, auth ast.AuthInformation) error {
	if auth.AuthType == ast.AuthType_PROCESS || auth.AuthType == ast.AuthType_SUPER {
		return nil
	}
	err := h.AuthorizationHandler.HandleAuth(ctx, aqs, auth)
	if err == nil {
		if h.Allowed == nil {
			return nil
		}
		return h.Allowed(ctx, auth)
	}
	if !sql.ErrPrivilegeCheckFailed.Is(err) {
		return mysqlPrivilegeError(err)
	}
	privilege := strings.ToUpper(strings.ReplaceAll(auth.AuthType, "_", " "))
	switch auth.TargetType {
	case ast.AuthTargetType_DatabaseIdentifiers:
		if len(auth.TargetNames) > 0 {
			return ErrDatabaseDenied(ctx, dbOrCurrent(ctx, auth.TargetNames[0]), "")
		}
	case ast.AuthTargetType_SingleTableIdentifier, ast.AuthTargetType_MultipleTableIdentifiers, ast.AuthTargetType_TableColumn:
		if len(auth.TargetNames) > 1 {
			return errTableDenied(ctx, privilege, auth.TargetNames[1])
		}
	}
	return errGlobalPrivilege(privilege)
}

// HandleAuthNode checks GRANT and REVOKE, which PlanCheck refuses for everyone.
func (h Authorization) HandleAuthNode(ctx *sql.Context, aqs sql.AuthorizationQueryState, node sql.AuthorizationCheckerNode) error {
	err := h.AuthorizationHandler.HandleAuthNode(ctx, aqs, node)
	if sql.ErrPrivilegeCheckFailed.Is(err) {
		return errUsersInConfig()
	}
	return mysqlPrivilegeError(err)
}

func (h Authorization) CheckDatabase(ctx *sql.Context, aqs sql.AuthorizationQueryState, dbName string) error {
	return mysqlPrivilegeError(h.AuthorizationHandler.CheckDatabase(ctx, aqs, dbName))
}

func (h Authorization) CheckSchema(ctx *sql.Context, aqs sql.AuthorizationQueryState, dbName, schemaName string) error {
	return mysqlPrivilegeError(h.AuthorizationHandler.CheckSchema(ctx, aqs, dbName, schemaName))
}

func (h Authorization) CheckTable(ctx *sql.Context, aqs sql.AuthorizationQueryState, dbName, schemaName, tableName string) error {
	return mysqlPrivilegeError(h.AuthorizationHandler.CheckTable(ctx, aqs, dbName, schemaName, tableName))
}

func dbOrCurrent(ctx *sql.Context, db string) string {
	if db == "" {
		return ctx.GetCurrentDatabase()
	}
	return db
}

// mysqlPrivilegeError turns the engine's privilege errors into MySQL's; others pass unchanged.
func mysqlPrivilegeError(err error) error {
	switch {
	case err == nil:
		return nil
	case sql.ErrDatabaseAccessDeniedForUser.Is(err):
		return mysqlerr.New(mysql.ERDBAccessDenied, "%s", err.Error())
	case sql.ErrTableAccessDeniedForUser.Is(err):
		return mysqlerr.New(mysqlerr.ERTableAccessDenied, "%s", err.Error())
	case sql.ErrPrivilegeCheckFailed.Is(err):
		return mysqlerr.New(mysql.ERSpecifiedAccessDenied, "%s", err.Error())
	}
	return err
}

func errUsersInConfig() error {
	return mysqlerr.New(mysql.ERSpecifiedAccessDenied,
		"Access denied; %s: add, change or remove [[users]] there", errUsersInConfigMessage)
}

// PlanCheck checks every plan just before it runs, for what the engine's privilege tables cannot
// express; see the table at the top of this file. The server asks it once per statement, at the
// first node of the statement's plan the engine builds (CheckedPlans.First).
type PlanCheck struct {
	Accounts *Accounts
	// Processes are the engine's connections, for KILL.
	Processes func() []sql.Process
	// Config is the running configuration: secure_file_priv and the constraints.
	Config func() *config.Config
}

// Check checks a statement's plan, and gives the plan to build (LOAD_FILE calls replaced by the
// files' contents). visit, when not nil, is called for every node the check walks.
func (pc PlanCheck) Check(ctx *sql.Context, n sql.Node, visit func(sql.Node)) (sql.Node, error) {
	admin := pc.Accounts.IsAdmin(ctx.Session.Client().User)
	var err error
	files := false
	engine.InspectPlan(ctx, n, func(n sql.Node) bool {
		if visit != nil {
			visit(n)
		}
		err = pc.checkNode(ctx, n, admin)
		return err == nil
	}, func(e sql.Expression) bool {
		if lf, ok := e.(*function.LoadFile); ok {
			files = true
			err = pc.checkLoadFile(lf, admin)
		}
		return err == nil
	})
	if err == nil && files {
		n, err = pc.withFileContents(ctx, n)
	}
	if err != nil {
		return nil, err
	}
	if !admin {
		pc.warnIgnoredHints(ctx)
	}
	return n, nil
}

// CheckedPlans remembers, for each session, the statement whose plan PlanCheck checked, by its
// process id (the engine gives each statement its own): the engine builds the iterators of
// joins and subqueries again while it runs, from the statement's context. A statement of a
// stored procedure is checked as its own (the server's procedure runner calls Again).
type CheckedPlans struct {
	last sync.Map // session id -> process id
}

// checkedPlanKey marks the context the server builds a checked plan in.
type checkedPlanKey struct{}

// Checked is ctx marked as the context of a checked plan: plans built in it are not first ones.
func Checked(ctx *sql.Context) *sql.Context {
	return ctx.WithContext(context.WithValue(ctx.Context, checkedPlanKey{}, true))
}

// First says whether the plan built in ctx is the first of its statement, and then remembers it.
func (c *CheckedPlans) First(ctx *sql.Context) bool {
	if ctx.Value(checkedPlanKey{}) != nil {
		return false
	}
	pid := ctx.Pid()
	if pid == 0 || ctx.Session == nil { // a context the server did not build: check every plan
		return true
	}
	prev, seen := c.last.Swap(ctx.Session.ID(), pid)
	return !seen || prev.(uint64) != pid
}

// Again is ctx for a statement of its own inside the one ctx runs (a stored procedure's): the
// next plan built in it is a first one.
func (c *CheckedPlans) Again(ctx *sql.Context) *sql.Context {
	if ctx.Session != nil {
		c.last.Delete(ctx.Session.ID())
	}
	if ctx.Value(checkedPlanKey{}) == nil {
		return ctx
	}
	return ctx.WithContext(context.WithValue(ctx.Context, checkedPlanKey{}, nil))
}

// Forget drops a closed connection's session.
func (c *CheckedPlans) Forget(session uint32) { c.last.Delete(session) }

// checkNode applies the rules for one node of the plan.
func (pc PlanCheck) checkNode(ctx *sql.Context, n sql.Node, admin bool) error {
	switch n := n.(type) {
	case *plan.Set:
		if admin {
			return nil
		}
		for _, e := range n.Exprs {
			if name, global := setsGlobal(e); global {
				return errGlobalPrivilege("SUPER or SYSTEM_VARIABLES_ADMIN (to set " + name + " for the whole server)")
			}
		}
	case *plan.CreateDB:
		if !admin {
			return ErrDatabaseDenied(ctx, n.DbName, "")
		}
	case *plan.DropDB:
		for _, p := range protectedDatabases {
			if strings.EqualFold(n.DbName, p) {
				return ErrDatabaseDenied(ctx, n.DbName, ": it cannot be dropped")
			}
		}
		if !admin {
			return ErrDatabaseDenied(ctx, n.DbName, "")
		}
	case *plan.CreateUser, *plan.AlterUser, *plan.DropUser, *plan.RenameUser, *plan.Grant, *plan.Revoke,
		*plan.GrantRole, *plan.RevokeRole, *plan.GrantProxy, *plan.RevokeProxy,
		*plan.CreateRole, *plan.DropRole:
		return errUsersInConfig()
	case *plan.CreateTrigger, *plan.CreateProcedure, *plan.CreateEvent:
		if !admin {
			return errGlobalPrivilege("admin (stored code runs with the rights of whoever runs it, so only admins may create it)")
		}
	case *plan.Use:
		if db := n.Database(); !admin && db != nil && !Usable(db.Name()) {
			return ErrDatabaseDenied(ctx, db.Name(), "")
		}
	case *plan.CreateSpatialRefSys:
		if !admin {
			return errGlobalPrivilege("SUPER")
		}
	case *plan.Kill:
		return pc.killable(ctx, n.ConnID, admin)
	case *plan.Into:
		if n.Outfile != "" || n.Dumpfile != "" {
			if err := pc.fileAccessAllowed(admin); err != nil {
				return err
			}
			_, err := pc.SecureFiles().Writable(n.Outfile + n.Dumpfile)
			return err
		}
	case *plan.LoadData:
		if err := pc.fileAccessAllowed(admin); err != nil {
			return err
		}
		if n.Local {
			return mysqlerr.New(mysqlerr.ERClientLocalFilesDisabled,
				"Loading local data is disabled; this must be enabled on both the client and server sides")
		}
		_, err := pc.SecureFiles().Readable(n.File)
		return err
	}
	return nil
}

// Usable reports whether a non-admin may use a database at all.
func Usable(db string) bool {
	for _, d := range []string{MainDatabase, "system", "information_schema"} {
		if strings.EqualFold(db, d) {
			return true
		}
	}
	return false
}

// setsGlobal reports whether a SET assignment changes a system variable beyond the session.
func setsGlobal(e sql.Expression) (string, bool) {
	f, ok := e.(*expression.SetField)
	if !ok {
		return "", false
	}
	v, ok := f.LeftChild.(*expression.SystemVar)
	if !ok {
		return "", false
	}
	scope, ok := v.Scope.(*sql.MysqlScope)
	return v.Name, !ok || scope.Type != sql.SystemVariableScope_Session
}

// killable allows an admin's KILL of any connection and a non-admin's of a connection of the
// same user only (MySQL: error 1095 for another user's thread, 1094 for an unknown one, also
// for an admin).
func (pc PlanCheck) killable(ctx *sql.Context, id uint32, admin bool) error {
	for _, p := range pc.Processes() {
		if p.Connection != id {
			continue
		}
		if !admin && p.User != ctx.Session.Client().User {
			return mysqlerr.New(mysql.ERKillDenied, "You are not owner of thread %d", id)
		}
		return nil
	}
	return mysqlerr.New(mysql.ERNoSuchThread, "Unknown thread id: %d", id)
}

// fileAccessAllowed is the gate of every statement that reads or writes server files.
func (pc PlanCheck) fileAccessAllowed(admin bool) error {
	if pc.SecureFiles().Dir == "" {
		return errSecureFilePriv()
	}
	if !admin {
		return errGlobalPrivilege("FILE")
	}
	return nil
}

// checkLoadFile admits LOAD_FILE(path) for an admin when path is a constant naming a file
// inside secure_file_priv once symbolic links and ".." are resolved. (The engine's own check
// only compares the file's directory, and follows a link out of it.)
func (pc PlanCheck) checkLoadFile(lf *function.LoadFile, admin bool) error {
	if err := pc.fileAccessAllowed(admin); err != nil {
		return err
	}
	var path string
	lit, ok := lf.Children()[0].(*expression.Literal)
	if ok {
		path, ok = lit.Value().(string)
	}
	if !ok {
		return mysqlerr.New(mysql.EROptionPreventsStatement,
			"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement (LOAD_FILE needs a constant file name)")
	}
	_, err := pc.SecureFiles().Readable(path)
	return err
}

// withFileContents replaces each LOAD_FILE(path), checked by checkLoadFile, by the file's
// contents: the engine's own LOAD_FILE follows a link out of the directory, and fails on this
// server's max_allowed_packet. Like MySQL's, the value is NULL for a missing file or one larger
// than max_allowed_packet.
func (pc PlanCheck) withFileContents(ctx *sql.Context, n sql.Node) (sql.Node, error) {
	n, _, err := transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.InsertInto:
			src, err := pc.withFileContents(ctx, x.Source)
			return x.WithSource(src), transform.NewTree, err
		case *plan.TableCopier:
			src, err := pc.withFileContents(ctx, x.Source)
			c := *x
			c.Source = src
			return &c, transform.NewTree, err
		}
		return n, transform.SameTree, nil
	})
	if err != nil {
		return nil, err
	}
	n, _, err = transform.NodeExprs(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		lf, ok := e.(*function.LoadFile)
		if !ok {
			return e, transform.SameTree, nil
		}
		data, err := pc.readFile(ctx, lf.Children()[0].(*expression.Literal).Value().(string))
		if err != nil || data == nil {
			return expression.NewLiteral(nil, types.LongBlob), transform.NewTree, err
		}
		return expression.NewLiteral(data, types.LongBlob), transform.NewTree, nil
	})
	return n, err
}

// readFile reads a file inside secure_file_priv; nil when it is missing, not a regular file, or
// larger than max_allowed_packet.
func (pc PlanCheck) readFile(ctx *sql.Context, path string) ([]byte, error) {
	resolved, err := pc.SecureFiles().Readable(path)
	if err != nil {
		var se *mysql.SQLError
		if errors.As(err, &se) && se.Num == mysql.ERTextFileNotReadable {
			return nil, nil
		}
		return nil, err
	}
	info, err := os.Stat(resolved)
	if err != nil || !info.Mode().IsRegular() {
		return nil, nil
	}
	if v, err := ctx.GetSessionVariable(ctx, "max_allowed_packet"); err == nil {
		if limit, _, err := types.Int64.Convert(ctx, v); err == nil && info.Size() > limit.(int64) {
			return nil, nil
		}
	}
	data, err := os.ReadFile(resolved)
	if err != nil {
		return nil, nil
	}
	return data, nil
}

// warnIgnoredHints tells a non-admin which SET_VAR hints of the statement were ignored because
// they break a constraint (the overload check ignores them; the server's hinted).
func (pc PlanCheck) warnIgnoredHints(ctx *sql.Context) {
	query := ctx.Query()
	if !strings.Contains(query, "/*+") {
		return
	}
	for _, h := range statement.Hints(query) {
		err := IgnoredHint(pc.Config().Constraints, h)
		if err == nil {
			continue
		}
		msg := "SET_VAR hint ignored: " + err.Error()
		if !hasWarning(ctx, msg) {
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERWrongValueForVar, Message: msg})
		}
	}
}

func hasWarning(ctx *sql.Context, msg string) bool {
	for _, w := range ctx.Session.Warnings() {
		if w.Message == msg {
			return true
		}
	}
	return false
}

// IgnoredHint says why a non-admin's SET_VAR hint of a session setting is ignored: its value
// breaks the setting's constraint ([constraints] hold session settings only).
func IgnoredHint(constraints map[string]config.Constraint, h statement.Hint) error {
	c, ok := constraints[h.Name]
	if !ok {
		return nil
	}
	if h.Name == config.WorkloadSetting && c.Readonly {
		return errors.New("setting " + h.Name + " is readonly (constraints." + h.Name + ".readonly)")
	}
	f, err := h.Number()
	if err != nil {
		return nil
	}
	return c.Check(h.Name, f)
}

// SecureFiles is the directory of secure_file_priv; Dir is "" when file access is off.
type SecureFiles struct {
	Dir string
}

// SecureFiles is the running configuration's secure_file_priv.
func (pc PlanCheck) SecureFiles() SecureFiles {
	return SecureFiles{Dir: pc.Config().SecureFilePriv}
}

// within reports a resolved path if it lies in the resolved directory.
func (f SecureFiles) within(resolved string) (string, error) {
	dir, err := filepath.EvalSymlinks(f.Dir)
	if err != nil {
		return "", mysqlerr.New(mysql.EROptionPreventsStatement,
			"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement (secure_file_priv: %v)", err)
	}
	rel, err := filepath.Rel(dir, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errSecureFilePriv()
	}
	return resolved, nil
}

// absolute requires an absolute file name: the engine would read a relative one from the
// server's working directory, not from secure_file_priv as MySQL does.
func absolute(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", mysqlerr.New(mysql.EROptionPreventsStatement,
			"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement (name the file with an absolute path inside secure_file_priv)")
	}
	return filepath.Clean(path), nil
}

// Readable resolves a file to read; it must exist and resolve inside the directory.
func (f SecureFiles) Readable(path string) (string, error) {
	abs, err := absolute(path)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A missing file: say so only when its place is inside the directory.
		where := abs
		if parent, perr := filepath.EvalSymlinks(filepath.Dir(abs)); perr == nil {
			where = filepath.Join(parent, filepath.Base(abs))
		}
		if _, outside := f.within(where); outside != nil {
			return "", outside
		}
		return "", mysqlerr.New(mysql.ERTextFileNotReadable,
			"File '%s' not found (%v)", path, errors.Unwrap(err))
	}
	return f.within(resolved)
}

// Writable resolves a file to create: its directory must resolve inside the directory, and the
// file must not exist (MySQL never overwrites; a dangling symbolic link counts as existing).
func (f SecureFiles) Writable(path string) (string, error) {
	abs, err := absolute(path)
	if err != nil {
		return "", err
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		if _, outside := f.within(abs); outside != nil {
			return "", outside
		}
		return "", mysqlerr.New(mysql.ERTextFileNotReadable,
			"Can't create/write to file '%s' (%v)", mysqlerr.Clipped(path, mysqlerr.QuotedValue), errors.Unwrap(err))
	}
	resolved, err := f.within(filepath.Join(parent, filepath.Base(abs)))
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(resolved); err == nil {
		return "", mysqlerr.New(mysql.ERFileExists, "File '%s' already exists", mysqlerr.Clipped(path, mysqlerr.QuotedValue))
	}
	return resolved, nil
}
