package statement

// IsExplain reports whether the statement is EXPLAIN, DESCRIBE or DESC (of a query or a table).
func IsExplain(sql string) bool {
	lx := lexer{sql: sql}
	first := lx.nextSignificant()
	return first.is(sql, "explain") || first.is(sql, "describe") || first.is(sql, "desc")
}
