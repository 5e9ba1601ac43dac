package toolbox

import (
	"strings"
	"testing"
)

// TestAttack_ListenSelectionAsWalked (held): listen's selection, a
// gate.List of {id, name} that sees each piece as it writes it, is
// printed on the first line as the gate's walk prints the same list
// unseen, whatever the tab puts in an id or a name: an invisible
// character, the note's prefix, an escape, a number id, a name that is
// no string, a long one clipped; and within maxSelectionBytes.
func TestAttack_ListenSelectionAsWalked(t *testing.T) {
	for _, v := range []string{
		`"plain"`, "\"a\u200bb\"", `"[bridge: saved"`, `"[Bridge"`, `"\u005bbridge"`, `"a\u0062"`, `"\/"`,
		"\"x\u2028y\"", `"data:,x"`, `"DATA:image/png;base64,AA"`, `"` + strings.Repeat("<", 200) + `"`,
		`"` + strings.Repeat("\u00e9", 70) + `"`, `"` + strings.Repeat("a", maxSelectionField) + `"`,
		`"` + strings.Repeat("a", maxSelectionField+1) + `"`, "\"\ufeff\"", `12`, `-1e999`, `1e5`,
		`"` + strings.Repeat("9", 200) + `"`, `{"a":1}`, `[1]`, `null`, `""`,
	} {
		for _, sel := range []string{
			`[{"id":` + v + `,"name":` + v + `}]`,
			`[{"id":"a","name":"b"},{"id":` + v + `,"name":"c"},{"name":` + v + `,"id":"d"}]`,
			`[{"id":"a","name":` + v + `},` + strings.Repeat(`{"id":"x","name":"y"},`, maxSelection) + `{"id":"z"}]`,
			`[ {"id" : ` + v + ` , "name" : "n" } ]`,
		} {
			reply := `{"ok":true,"heard":[{"text":"hi","atMs":1}],"selection":` + sel + `}`
			answer, err := door([]byte(reply), nil)
			if err != nil {
				continue
			}
			s, _ := selection(answer)
			got := line(field{"selection", s})
			want := line(member("selection", s.Raw))
			if string(got) != string(want) {
				t.Fatalf("%.120q: selection printed %.300q from what the List saw, %.300q walked", sel, got, want)
			}
			if n := len(got) - len(`{"selection":}`); n > maxSelectionBytes {
				t.Fatalf("%.120q: a selection of %d bytes, over %d", sel, n, maxSelectionBytes)
			}
		}
	}
}
