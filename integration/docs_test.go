package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docsDir is the documentation folder; every Markdown file in it is user documentation.
const docsDir = "../docs"

// pendingDocs are files the README's index names before they exist, each with the work that
// brings it: their links are not checked while they are missing, and checked like any other
// once they exist (the index test then logs that the entry can go, so that merging that work
// breaks nothing).
var pendingDocs = map[string]string{
	"docs/storage.md": "the Pebble storage (issue 24) writes it",
}

// userDocs returns the user documentation that TestDocumentedExamplesRun reads: README.md,
// CONTRIBUTING.md and every Markdown file in docs/.
func userDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(docs)
	return append([]string{"../README.md", "../CONTRIBUTING.md"}, docs...)
}

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

// TestDocumentedExamplesRun: the examples of the README and of every Markdown file in docs/ work
// as written. Every ```sql
// block runs in the mariadb CLI started as the quick start says (--comments), from the first
// statement to the last without an error; every `mariadb ... -e "..."` command shown in a code
// block runs on the admin listener without an error and reaches the server (the CLI's own
// `system` command would print "sh: ...").
func TestDocumentedExamplesRun(t *testing.T) {
	// The examples' secure_file_priv is docFiles; the test's server has a temporary one.
	const docFiles = "/var/lib/overloadsql/files"
	files := t.TempDir()
	s := startServer(t, serverOptions{top: "secure_file_priv = " + quote(files) + "\n"})
	var sqlBlocks, commands int
	docs := userDocs(t)
	for _, path := range docs {
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
				stmt = strings.ReplaceAll(stmt, docFiles, files)
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
		t.Errorf("found %d sql blocks and %d mariadb -e commands in %v; want at least 3 and 4", sqlBlocks, commands, docs)
	}
}

// markdownLink is a link or image target in Markdown text: [text](target) or ![alt](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// inlineCode is a code span of one line, whose text is not Markdown.
var inlineCode = regexp.MustCompile("`[^`]*`")

// proseLines returns the lines of a Markdown text outside fenced code blocks, with code spans
// removed, each with its line number.
func proseLines(text string) (lines []string, numbers []int) {
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, inlineCode.ReplaceAllString(line, ""))
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown text: the heading
// in lower case, without the characters that are not letters, digits, '-', '_' or spaces, with
// spaces as '-', and "-1", "-2", ... after a repeated one.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			anchors[anchor+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[anchor] = true
		}
		seen[anchor]++
	}
	return anchors
}

// TestDocLinksResolve: every relative link of README.md, CONTRIBUTING.md and docs/*.md names a
// file of the repository, and its #anchor a heading of that file, so that moving a section
// cannot leave a link behind. A missing file in pendingDocs is not an error yet.
func TestDocLinksResolve(t *testing.T) {
	texts := map[string]string{}
	read := func(path string) (string, error) {
		if text, ok := texts[path]; ok {
			return text, nil
		}
		b, err := os.ReadFile(path)
		texts[path] = string(b)
		return string(b), err
	}
	var links int
	for _, doc := range userDocs(t) {
		text, err := read(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines, numbers := proseLines(text)
		for i, line := range lines {
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.Join(filepath.Dir(doc), file)
				}
				if _, err := os.Stat(path); err != nil {
					if rel, _ := filepath.Rel("..", path); pendingDocs[filepath.ToSlash(rel)] != "" {
						continue
					}
					t.Errorf("%s:%d: link %s: %v", doc, numbers[i], target, err)
					continue
				}
				if anchor == "" || !strings.HasSuffix(path, ".md") {
					continue
				}
				linked, err := read(path)
				if err != nil {
					t.Fatal(err)
				}
				if !headingAnchors(linked)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", doc, numbers[i], target, path, anchor)
				}
			}
		}
	}
	// README.md alone holds more than 20 relative links: finding fewer means the parsing no
	// longer sees them.
	if links < 20 {
		t.Errorf("found %d relative links in %v; want at least 20", links, userDocs(t))
	}
}

// TestDocsIndexListsEveryFile: the README's documentation index links every file in docs/, and
// every docs/ file it links exists (or is pending, with the work that brings it).
func TestDocsIndexListsEveryFile(t *testing.T) {
	text, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	index := sectionOf(t, string(text), "## Documentation")
	listed := map[string]bool{}
	lines, _ := proseLines(index)
	for _, line := range lines {
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			file, _, _ := strings.Cut(m[1], "#")
			if strings.HasPrefix(file, "docs/") && file != "docs/" {
				listed[file] = true
			}
		}
	}
	entries, err := os.ReadDir(docsDir)
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, e := range entries {
		name := "docs/" + e.Name()
		if e.IsDir() {
			name += "/"
		}
		present[name] = true
		if !listed[name] {
			t.Errorf("README.md, Documentation: %s is not listed; give it a line in the index", name)
		}
		if why := pendingDocs[name]; why != "" {
			t.Logf("%s exists now (%s): its entry in pendingDocs can go", name, why)
		}
	}
	for name := range listed {
		if !present[name] && pendingDocs[name] == "" {
			t.Errorf("README.md, Documentation lists %s, which does not exist", name)
		}
	}
	if len(listed) < 10 {
		t.Errorf("README.md, Documentation links %d files of docs/; want every file, at least 10", len(listed))
	}
}

// TestLayoutListsEveryPackage: the README's Layout names every folder of the module that holds
// Go files, so that a package added or moved shows up there (with its line saying what it is),
// and names no folder that is gone.
func TestLayoutListsEveryPackage(t *testing.T) {
	text, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	layout := sectionOf(t, string(text), "## Layout")
	listed := map[string]bool{}
	for _, b := range fencedBlocks(layout) {
		for _, line := range strings.Split(b.body, "\n") {
			if f := strings.Fields(line); len(f) > 0 && strings.HasSuffix(f[0], "/") && !strings.HasPrefix(line, " ") {
				listed[strings.TrimSuffix(f[0], "/")] = true
			}
		}
	}
	packages := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel("..", filepath.Dir(path))
			if err != nil {
				return err
			}
			packages[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range packages {
		if !listed[pkg] {
			t.Errorf("README.md, Layout: %s/ holds Go files but has no line; add one that says what it is", pkg)
		}
	}
	for dir := range listed {
		if _, err := os.Stat(filepath.Join("..", dir)); err != nil {
			t.Errorf("README.md, Layout lists %s/, which does not exist", dir)
		}
	}
	if len(packages) < 10 {
		t.Errorf("found %d folders with Go files; the walk no longer sees the module", len(packages))
	}
}
