package statement

import (
	"fmt"
	"strings"
	"testing"
)

func TestLexer(t *testing.T) {
	cases := []struct {
		sql  string
		want string // tokens as kind:text, separated by spaces
	}{
		{"SELECT a.b, 1", "word:SELECT word:a punct:. word:b punct:, number:1"},
		{`'it\'s' "a""b" 'x''y'`, `string:'it\'s' string:"a""b" string:'x''y'`},
		{"`a``b`.c", "quoted:`a``b` punct:. word:c"},
		{"a /* c */ b /*+ h */ c /*! v */ d", "word:a comment:/*_c_*/ word:b hint:/*+_h_*/ word:c version:/*!_v_*/ word:d"},
		{"a -- c\nb #d\nc // e\nd --x", "word:a comment:--_c| word:b comment:#d| word:c comment://_e| word:d comment:--x"},
		{"1e5 1.5e-3 .5 0x1F 1system 0x1Fz 1e+x 1.x", "number:1e5 number:1.5e-3 number:.5 number:0x1F word:1system word:0x1Fz word:1e+x number:1. word:x"},
		{"x'1F' b'01' N'n' _utf8'u'", "string:x'1F' string:b'01' word:N string:'n' word:_utf8 string:'u'"},
		{"@a @@b @@session.c @`d e` @'f'", "variable:@a variable:@@b variable:@@session.c variable:@`d_e` variable:@ string:'f'"},
		{"'u'@'h' u@h `u`@h", "string:'u' punct:@ string:'h' word:u punct:@ word:h quoted:`u` punct:@ word:h"},
		{"? :a :=", "bindvar:? bindvar::a punct::="},
		{"my$var é", "word:my$var word:é"},
		{"'open", "string:'open"},
	}
	names := map[kind]string{kindWord: "word", kindQuoted: "quoted", kindString: "string", kindNumber: "number",
		kindVariable: "variable", kindBindVar: "bindvar", kindComment: "comment", kindHint: "hint",
		kindVersionComment: "version", kindPunct: "punct"}
	for _, tc := range cases {
		lx := lexer{sql: tc.sql}
		var got []string
		for tok := lx.next(); tok.kind != kindEnd; tok = lx.next() {
			text := strings.NewReplacer(" ", "_", "\n", "|").Replace(tok.text(tc.sql))
			got = append(got, fmt.Sprintf("%s:%s", names[tok.kind], text))
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("lexing %q\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
}
