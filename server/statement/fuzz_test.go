package statement

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// FuzzRewriteSystem checks RewriteSystem against the engine's own tokenizer and parser:
//   - a text without "system" is returned as is (the same string, not a copy);
//   - the rewrite only inserts backquote pairs around words SYSTEM;
//   - where the parser's tokenizer reads the whole text and sees no SYSTEM token (the word is only
//     in strings, comments, quoted identifiers or longer words), the text is returned as is;
//   - the rewrite keeps the tokens: the tokenizer reads the same tokens before and after, each
//     SYSTEM keyword becoming the identifier system (no two names merged into one);
//   - a text that parses still parses after the rewrite, to the same tree.
func FuzzRewriteSystem(f *testing.F) {
	for _, tc := range rewriteCases {
		f.Add(tc.in)
	}
	for _, seed := range []string{
		"select system.x, 'system', \"system\", `system` from system.y # system",
		"select 'a\\'system' from t where b = 'c'' system'",
		"select 1 --system\nfrom system.t",
		"select @`system` , @@global.system, @'system'",
		"select x'1f' system, b'01' system from t",
		"select 1.system, .5system, 0x1Fsystem, 1e5system",
		"/*!40101 SET system = 1 */; select system.a from system.b",
		"create user system@system",
		"select * from t as system join system.t2 using (system)",
		"SELECT /*+ SET_VAR(a=1) MAX_EXECUTION_TIME(10) */ system.x FROM system.y",
		"insert into system.t (system) values ('system')",
		"select a:system from t",
		"SELECT `unterminated system",
		"SELECT 'unterminated system",
		"SELECT /* unterminated system",
		"spatial reference system with system versioning",
		"SELECT system`x` FROM main.system",
		"SELECT `x`system, `a`system`b` FROM t",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		got := RewriteSystem(sql)
		if !strings.Contains(strings.ToLower(sql), "system") {
			if got != sql || unsafe.StringData(got) != unsafe.StringData(sql) {
				t.Fatalf("text without system changed or copied: %q -> %q", sql, got)
			}
			return
		}
		if !onlyBackquotesAroundSystem(sql, got) {
			t.Fatalf("rewrite did more than backquote SYSTEM: %q -> %q", sql, got)
		}
		if clean, keywords := systemKeywords(sql); clean && keywords == 0 && got != sql {
			t.Fatalf("the parser sees no SYSTEM keyword, yet the text changed: %q -> %q", sql, got)
		}
		if before, ok := tokens(sql); ok {
			if after, ok := tokens(got); !ok || !slices.Equal(before, after) {
				t.Fatalf("rewrite changed the tokens of %q -> %q:\nbefore %q\n after %q", sql, got, before, after)
			}
		}
		before, err := parse(sql)
		if err != nil {
			return
		}
		after, err := parse(got)
		if err != nil {
			t.Fatalf("%q parses, its rewrite %q does not: %v", sql, got, err)
		}
		if before != after {
			t.Fatalf("rewrite changed the tree of %q:\nbefore %s\n after %s", sql, before, after)
		}
	})
}

// tokens runs the parser's tokenizer over sql and returns its tokens as type and text, the
// SYSTEM keyword as the identifier it names; ok is false when the tokenizer stopped at a
// lexical error.
func tokens(sql string) (out []string, ok bool) {
	defer func() {
		if recover() != nil { // the tokenizer panics on some texts, e.g. /*!*/x
			out, ok = nil, false
		}
	}()
	tkn := sqlparser.NewStringTokenizer(sql)
	for range 10 * (len(sql) + 1) {
		typ, val := tkn.Scan()
		switch typ {
		case 0:
			return out, true
		case sqlparser.LEX_ERROR:
			return out, false
		case sqlparser.SYSTEM:
			typ = sqlparser.ID
		}
		out = append(out, fmt.Sprintf("%d:%s", typ, strings.ToLower(string(val))))
	}
	return out, false
}

// onlyBackquotesAroundSystem reports whether got is sql with zero or more words "system" (any
// case) wrapped in backquotes, and a space between such a backquote and one written beside it.
func onlyBackquotesAroundSystem(sql, got string) bool {
	var prev byte // the last byte of got consumed
	for len(sql) > 0 || len(got) > 0 {
		switch {
		case len(sql) > 0 && len(got) > 0 && sql[0] == got[0]:
			prev, sql, got = got[0], sql[1:], got[1:]
		case len(got) >= 8 && got[0] == '`' && got[7] == '`' && strings.HasPrefix(sql, got[1:7]) &&
			strings.EqualFold(got[1:7], "system"):
			prev, sql, got = '`', sql[6:], got[8:]
		case len(got) >= 2 && got[0] == ' ' && prev == '`' && got[1] == '`':
			prev, got = ' ', got[1:]
		default:
			return false
		}
	}
	return true
}

// systemKeywords runs the parser's tokenizer over sql and counts the SYSTEM keyword tokens it
// returns; clean is false when the tokenizer stopped at a lexical error.
func systemKeywords(sql string) (clean bool, keywords int) {
	defer func() {
		if recover() != nil { // the tokenizer panics on some texts, e.g. /*!*/x
			clean = false
		}
	}()
	tkn := sqlparser.NewStringTokenizer(sql)
	for range 10 * (len(sql) + 1) {
		typ, _ := tkn.Scan()
		switch typ {
		case 0:
			return true, keywords
		case sqlparser.LEX_ERROR:
			return false, keywords
		case sqlparser.SYSTEM:
			keywords++
		}
	}
	return false, keywords
}

// FuzzClassify checks Classify's exemptions for system tables against the engine's parser: when a
// statement that Classify exempts as reading only system tables parses (after RewriteSystem, as
// the server runs it), every table in its tree belongs to a system database.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add(tc.sql, tc.currentDB)
	}
	f.Fuzz(func(t *testing.T, sql, currentDB string) {
		class := summarize(sql).Exempt(currentDB)
		if class.Exempt != (class.Reason != "") {
			t.Fatalf("Classify(%q) = %+v: a reason goes with an exemption", sql, class)
		}
		if !class.Exempt {
			return
		}
		st, err := sqlparser.Parse(RewriteSystem(sql))
		if err != nil {
			return
		}
		if err := cheapByConstruction(st); err != nil {
			t.Fatalf("Classify(%q, %q) = %+v, but the statement %s", sql, currentDB, class, err)
		}
		if class.Reason != reasonSystemTables {
			return
		}
		if explain, ok := st.(*sqlparser.Explain); ok {
			st = explain.Statement
		}
		tables := 0
		err = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			switch n := node.(type) {
			case *sqlparser.AliasedTableExpr:
				switch e := n.Expr.(type) {
				case sqlparser.TableName:
					db := e.DbQualifier.String()
					if db == "" {
						db = currentDB
					}
					if e.DbQualifier.IsEmpty() && strings.EqualFold(e.Name.String(), "dual") {
						return true, nil
					}
					if !isSystemDB(db) {
						return false, fmt.Errorf("reads table %s.%s", db, e.Name.String())
					}
					tables++
				case *sqlparser.Subquery:
				default:
					return false, fmt.Errorf("reads %T", e)
				}
			case *sqlparser.JSONTableExpr, sqlparser.TableFuncExpr, *sqlparser.CommonTableExpr:
				return false, fmt.Errorf("reads %T", n)
			}
			return true, nil
		}, st)
		if err != nil {
			t.Fatalf("Classify(%q, %q) = %+v, but the statement %s", sql, currentDB, class, err)
		}
		if tables != 1 {
			t.Fatalf("Classify(%q, %q) = %+v, but the parser finds %d tables", sql, currentDB, class, tables)
		}
	})
}

// cheapByConstruction checks a parsed exempt statement: no subquery, no regular expression, and
// only the allow-listed functions.
func cheapByConstruction(st sqlparser.Statement) error {
	return sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch n := node.(type) {
		case *sqlparser.Subquery:
			return false, fmt.Errorf("has a subquery")
		case *sqlparser.ComparisonExpr:
			if n.Operator == sqlparser.RegexpStr || n.Operator == sqlparser.NotRegexpStr {
				return false, fmt.Errorf("matches a regular expression")
			}
		case *sqlparser.FuncExpr:
			if !n.Qualifier.IsEmpty() || !slices.Contains(cheapFunctions, n.Name.Lowered()) {
				return false, fmt.Errorf("calls %s", sqlparser.String(n))
			}
		}
		return true, nil
	}, st)
}
