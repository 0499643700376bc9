package statement

// Diagnostics is what a statement does with the diagnostics area (the previous statement's
// errors and warnings).
type Diagnostics int

const (
	// ClearsDiagnostics: an ordinary statement; its own errors and warnings replace the previous ones.
	ClearsDiagnostics Diagnostics = iota
	// ReadsDiagnostics: SHOW WARNINGS, or a SELECT of system variables among which
	// @@warning_count or @@error_count; it leaves the previous statement's diagnostics.
	ReadsDiagnostics
	// ShowErrors is SHOW ERRORS [LIMIT ...].
	ShowErrors
	// CountWarnings is SHOW COUNT(*) WARNINGS.
	CountWarnings
	// CountErrors is SHOW COUNT(*) ERRORS.
	CountErrors
)

// ClassifyDiagnostics tells what the statement does with the diagnostics area, the way MySQL
// treats it. It does not allocate.
func ClassifyDiagnostics(sql string) Diagnostics {
	lx := lexer{sql: sql}
	first := lx.nextSignificant()
	switch {
	case first.is(sql, "show"):
		t := lx.nextSignificant()
		switch {
		case t.is(sql, "warnings"):
			return ReadsDiagnostics
		case t.is(sql, "errors"):
			return ShowErrors
		case t.is(sql, "count"):
			if !lx.nextSignificant().isPunct(sql, '(') || !lx.nextSignificant().isPunct(sql, '*') || !lx.nextSignificant().isPunct(sql, ')') {
				return ClearsDiagnostics
			}
			t = lx.nextSignificant()
			kind := ClearsDiagnostics
			switch {
			case t.is(sql, "warnings"):
				kind = CountWarnings
			case t.is(sql, "errors"):
				kind = CountErrors
			}
			if kind != ClearsDiagnostics && lx.endsAfter(lx.nextSignificant()) {
				return kind
			}
		}
	case first.is(sql, "select"):
		if namesDiagnosticCounts(sql) && selectsOnlySystemVariables(lx) {
			return ReadsDiagnostics
		}
	}
	return ClearsDiagnostics
}

// namesDiagnosticCounts reports whether sql mentions warning_count or error_count.
func namesDiagnosticCounts(sql string) bool {
	lx := lexer{sql: sql}
	for t := lx.nextSignificant(); t.kind != kindEnd; t = lx.nextSignificant() {
		if t.kind != kindVariable {
			continue
		}
		name := t.text(sql)
		for _, suffix := range []string{"warning_count", "error_count"} {
			if len(name) >= len(suffix) && equalFoldASCII(name[len(name)-len(suffix):], suffix) {
				return true
			}
		}
	}
	return false
}
