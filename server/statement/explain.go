package statement

// IsExplain reports whether the statement is EXPLAIN, DESCRIBE or DESC (of a query or a table),
// from the summary's first word.
func (s *Summary) IsExplain() bool { return isExplainVerb(s.sql, s.verb) }

func isExplainVerb(sql string, first token) bool {
	return first.is(sql, "explain") || first.is(sql, "describe") || first.is(sql, "desc")
}
