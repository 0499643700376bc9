package statement

import "strconv"

// KilledConnection reads KILL [CONNECTION | QUERY] id and returns the connection id it names;
// ok is false for any other statement, and for an id that is not a plain decimal number.
func (s *Summary) KilledConnection() (id uint32, ok bool) {
	sql := s.sql
	if !s.verb.is(sql, "kill") {
		return 0, false
	}
	lx := s.after
	t := lx.nextSignificant()
	if t.is(sql, "connection") || t.is(sql, "query") {
		t = lx.nextSignificant()
	}
	if t.kind != kindNumber {
		return 0, false
	}
	n, err := strconv.ParseUint(t.text(sql), 10, 32)
	if err != nil || !lx.endsAfter(lx.nextSignificant()) {
		return 0, false
	}
	return uint32(n), true
}
