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

// showDiagnostics reads the rest of a SHOW: SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) WARNINGS
// and SHOW COUNT(*) ERRORS have to do with the diagnostics area, other SHOWs clear it.
func showDiagnostics(lx lexer) Diagnostics {
	sql := lx.sql
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
	return ClearsDiagnostics
}

// namesDiagnosticCount reports whether a variable's name ends in warning_count or error_count.
func namesDiagnosticCount(name string) bool {
	for _, suffix := range []string{"warning_count", "error_count"} {
		if len(name) >= len(suffix) && equalFoldASCII(name[len(name)-len(suffix):], suffix) {
			return true
		}
	}
	return false
}
