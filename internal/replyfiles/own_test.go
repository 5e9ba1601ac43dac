package replyfiles

import (
	"slices"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// The shell's own members are the five of docs/protocol.md §4.4 and
// §7.15, written here from the spec: every Own has a name, and the names
// are those.
func TestOwnNamesAreTheSpecs(t *testing.T) {
	var got []string
	for m := range numOwn {
		got = append(got, m.String())
	}
	want := []string{"savedTo", "savedBytes", "savedType", "textSavedTo", "textError"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the shell's own members are %q, want %q", got, want)
	}
}

// Strip drops the page's members of an Own's name, keeps what With wrote
// (what --out wrote stays through --save), and keeps the page's other
// members in order.
func TestStripKeepsOnlyTheShellsOwn(t *testing.T) {
	r, err := envelope.Decode([]byte(`{"ok":true,"savedTo":"/etc/passwd","savedBytes":1,"n":2,"savedType":"image/gif","textSavedTo":"x","textError":"y","saved":true}`))
	if err != nil {
		t.Fatal(err)
	}
	o := Strip(r.Members())
	if got, want := string(o.AppendJSON(nil)), `{"ok":true,"n":2,"saved":true}`; got != want {
		t.Errorf("Strip(the page's reply) = %s, want %s", got, want)
	}
	o = With(With(o, SavedTo, "/home/u/x.png"), SavedType, "image/png")
	o = Strip(With(o.Set("savedBytes", gate.Value{Raw: []byte("7")}), TextError, "refused")) // a page's savedBytes set late is still the page's
	if got, want := string(o.AppendJSON(nil)), `{"ok":true,"n":2,"saved":true,"savedTo":"/home/u/x.png","savedType":"image/png","textError":"refused"}`; got != want {
		t.Errorf("Strip(the shell's own with the page's) = %s, want %s", got, want)
	}
}
