package engine

import "testing"

func TestCheckedFunctionsReplaceGeometryReadersAndJSONSearch(t *testing.T) {
	names := map[string]bool{}
	for _, f := range CheckedFunctions() {
		names[f.FunctionName()] = true
	}
	for _, want := range []string{"json_search", "st_geomfromwkb", "st_geomfromtext", "st_pointfromwkb"} {
		if !names[want] {
			t.Errorf("CheckedFunctions has no %s", want)
		}
	}
	if names["st_astext"] {
		t.Error("CheckedFunctions replaces st_astext, which reads no geometry's binary or text form")
	}
}
