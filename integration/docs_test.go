package integration

import (
	"os"
	"strings"
	"testing"
)

// The user documentation, read by TestDocumentedExamplesRun.
var userDocs = []string{"../README.md", "../docs/reference.md", "../docs/operations.md", "../docs/metrics.md"}

// fencedBlock is one ``` block of a Markdown file.
type fencedBlock struct {
	lang string // what follows the opening ```, e.g. "sql"
	line int    // line number of the opening ```
	body string
}

// fencedBlocks returns the fenced code blocks of a Markdown text, in order.
func fencedBlocks(text string) []fencedBlock {
	var blocks []fencedBlock
	var cur *fencedBlock
	var body []string
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "```") {
			if cur != nil {
				body = append(body, line)
			}
			continue
		}
		if cur == nil {
			cur = &fencedBlock{lang: strings.TrimPrefix(trimmed, "```"), line: i + 1}
			body = nil
			continue
		}
		cur.body = strings.Join(body, "\n")
		blocks = append(blocks, *cur)
		cur = nil
	}
	return blocks
}

// cliStatements returns the SQL of every `mariadb ... -e "SQL"` command line in a shell block
// (lines continued with a backslash joined), and whether the line asks for --binary-mode.
func cliStatements(body string) (statements []string, binaryMode []bool) {
	joined := strings.ReplaceAll(body, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		if !strings.HasPrefix(line, "mariadb ") {
			continue
		}
		start := strings.Index(line, ` -e "`)
		end := strings.LastIndex(line, `"`)
		if start < 0 || end <= start+len(` -e "`) {
			continue
		}
		statements = append(statements, line[start+len(` -e "`):end])
		binaryMode = append(binaryMode, strings.Contains(line, "--binary-mode"))
	}
	return statements, binaryMode
}

// TestDocumentedExamplesRun: the examples of the README and docs/ work as written. Every ```sql
// block runs in the mariadb CLI started as the quick start says (--comments), from the first
// statement to the last without an error; every `mariadb ... -e "..."` command shown in a code
// block runs on the admin listener without an error and reaches the server (the CLI's own
// `system` command would print "sh: ...").
func TestDocumentedExamplesRun(t *testing.T) {
	s := startServer(t, serverOptions{})
	var sqlBlocks, commands int
	for _, path := range userDocs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range fencedBlocks(string(text)) {
			if b.lang == "sql" {
				sqlBlocks++
				if out, err := mariadbCLI(t, s.addr, "default", b.body, "--comments", "--batch"); err != nil {
					t.Errorf("%s:%d: the sql block fails in the mariadb CLI: %v\n%s", path, b.line, err, out)
				}
				continue
			}
			statements, binaryMode := cliStatements(b.body)
			for i, stmt := range statements {
				commands++
				args := []string{"--batch", "-e", stmt}
				if binaryMode[i] {
					args = append([]string{"--binary-mode"}, args...)
				}
				out, err := mariadbCLI(t, s.adminAddr, "default", "", args...)
				if err != nil || strings.Contains(out, "sh: ") || strings.Contains(out, "ERROR") {
					t.Errorf("%s:%d: mariadb -e %q: %v\n%s", path, b.line, stmt, err, out)
				}
			}
		}
	}
	// The docs hold 3 sql blocks and 4 command lines today: finding fewer means the parsing
	// no longer sees them, not that they run.
	if sqlBlocks < 3 || commands < 4 {
		t.Errorf("found %d sql blocks and %d mariadb -e commands in %v; want at least 3 and 4", sqlBlocks, commands, userDocs)
	}
}
