package statement

// Placeholders counts the '?' parameters of a statement to prepare, also those inside
// /*!NNNNN ... */ comments, which the parser reads as part of the statement.
func Placeholders(sql string) int {
	n := 0
	lx := lexer{sql: sql}
	for t := lx.next(); t.kind != kindEnd; t = lx.next() {
		switch t.kind {
		case kindBindVar:
			if t.text(sql) == "?" {
				n++
			}
		case kindVersionComment:
			n += Placeholders(versionCommentSQL(t.text(sql)))
		}
	}
	return n
}
