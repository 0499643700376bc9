package integration

import (
	"os"
	"strings"
	"testing"
)

// referencePath is the user reference that must list everything the server shows.
const referencePath = "../docs/reference.md"

// TestReferenceListsEverything keeps docs/reference.md true as settings, tables, metrics and
// events are added: every one the running server shows must have its row there (a server
// setting with its default and whether it is reloadable), and every system table its section
// with every column.
func TestReferenceListsEverything(t *testing.T) {
	text, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	ref := string(text)
	s := startServer(t, serverOptions{})
	db := s.adminDB()

	// A row of a Markdown table whose first cell is the name in backquotes.
	row := func(section, name string) (string, bool) {
		for _, line := range strings.Split(section, "\n") {
			if strings.HasPrefix(line, "| `"+name+"` |") {
				return line, true
			}
		}
		return "", false
	}

	settings := sectionOf(t, ref, "## Server settings")
	for _, r := range queryStrings(t, db, "SELECT name, default_value, changeable_without_restart FROM system.server_settings") {
		f := strings.Split(r, "\t")
		line, ok := row(settings, f[0])
		if !ok {
			t.Errorf("docs/reference.md, Server settings: no row for %s", f[0])
			continue
		}
		def := "`" + f[1] + "`"
		if f[1] == "" {
			def = "`\"\"`"
		}
		changes := map[string]string{"Yes": "| reloadable |", "No": "| restart |"}[f[2]]
		if !strings.Contains(line, "| "+def+" |") || !strings.Contains(line, changes) {
			t.Errorf("docs/reference.md, Server settings: row of %s should show default %s and %q:\n%s", f[0], def, changes, line)
		}
	}
	session := sectionOf(t, ref, "## Session settings")
	for _, r := range queryStrings(t, db, "SELECT name, default_value FROM system.settings") {
		f := strings.Split(r, "\t")
		if line, ok := row(session, f[0]); !ok || !strings.Contains(line, "| `"+f[1]+"` |") {
			t.Errorf("docs/reference.md, Session settings: no row for %s with default %s", f[0], f[1])
		}
	}

	for _, table := range queryStrings(t, db, "SHOW TABLES FROM system") {
		section := sectionOf(t, ref, "### `system."+table+"`")
		for _, col := range queryStrings(t, db, "SELECT column_name FROM information_schema.columns WHERE table_schema = 'system' AND table_name = ?", table) {
			if _, ok := row(section, col); !ok {
				t.Errorf("docs/reference.md, system.%s: no row for column %s", table, col)
			}
		}
	}
	for table, query := range map[string]string{
		"asynchronous_metrics": "SELECT metric FROM system.asynchronous_metrics",
		"events":               "SELECT event FROM system.events",
		"metrics":              "SELECT metric FROM system.metrics",
	} {
		section := sectionOf(t, ref, "### `system."+table+"`")
		for _, name := range queryStrings(t, db, query) {
			if _, ok := row(section, name); !ok {
				t.Errorf("docs/reference.md, system.%s: no row for %s", table, name)
			}
		}
	}
}

// sectionOf returns the text under a heading of the reference, up to the next heading of the
// same or a higher level.
func sectionOf(t *testing.T, doc, heading string) string {
	t.Helper()
	start := strings.Index(doc, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("the document has no heading %q", heading)
	}
	body := doc[start+len(heading)+2:]
	level := heading[:strings.Index(heading, " ")+1]
	for i := 0; i < len(body); {
		next := strings.Index(body[i:], "\n#")
		if next < 0 {
			break
		}
		i += next + 1
		if h := body[i:]; strings.HasPrefix(h, "# ") || strings.HasPrefix(h, "## ") || strings.HasPrefix(h, level) {
			return body[:i]
		}
	}
	return body
}
