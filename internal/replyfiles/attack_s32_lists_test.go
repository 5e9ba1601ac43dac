package replyfiles

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// TestSec_T9_SaveOfMegabyteEntriesAllocatesLessThanTwiceTheReply: a
// 60 MB reply whose files list is 40 entries (files.MaxSaved and
// lookPast) of a 1.5 MB member beside name and a tiny image. list builds
// the list shown in the reply's place from []byte{'['}, and
// each entry written grew it by what one entry takes or a quarter of
// itself, copying all before it: the first entries each copy the list
// again, then every fourth or so, so Save allocates some 320 MB, five
// times the reply (and call_to_files, which shows the tab's reply, not
// this list, builds it all the same). The list's size is known before
// (at most the files value's, less the data URLs, plus each entry's
// members of the bridge). An outside attack's finding: it failed on 56bb0e5 (at bf91d3c, 380 MB).
func TestSec_T9_SaveOfMegabyteEntriesAllocatesLessThanTwiceTheReply(t *testing.T) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	var sb strings.Builder
	sb.WriteString(`{"ok":true,"files":[`)
	for e := range 40 {
		if e > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"note":"%s","name":"f%d.png","dataUrl":"data:image/png;base64,%s"}`, strings.Repeat("j", 1500<<10), e, png)
	}
	b := []byte(sb.String() + "]}")
	got, saved := saveAllocs(t, b)
	if saved != 32 || got >= uint64(2*len(b)) {
		t.Errorf("Save saved %d files and allocated %d KiB for a %d KiB reply of 40 entries of 1.5 MB, want 32 and less than twice the reply", saved, got>>10, len(b)>>10)
	} else {
		t.Logf("Save allocated %d KiB for a %d KiB reply", got>>10, len(b)>>10)
	}
}

// TestAttack_SaveOfAListPastTheDoorsRecordsIsTheSame (held): the door
// records a reply's lists up to maxRecs (1,024) records and drops a list
// that does not fit whole, to be read again when walked; Save of a files
// list is the same, saved files, refusals and the list shown, whether the
// door recorded it or a list before it spent the records (pad of 1,023
// and 1,024 entries, so that files' head or first entry is the one past),
// for entries of escaped names, whitespace, nested lists, scalars and
// members the bridge writes.
func TestAttack_SaveOfAListPastTheDoorsRecordsIsTheSame(t *testing.T) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	files := `[ {"\u006eame" : "a.png" , "dataUrl":"data:image/png;base64,` + png + `", "saved\u0054o":"/x", "m":{"k":[1,{"\u0065rror":2}]}} ,7,[1,{"a":2}],{}, {"name":"b.png","\u0064ataUrl" : "data:image/png;base64,` + png + `"}, {"dataUrl":null}, "s" , null ]`
	shown := func(pad int) (string, string) {
		t.Helper()
		in := `{"ok":true,"files":` + files + `}`
		if pad > 0 {
			in = `{"pad":[` + strings.TrimSuffix(strings.Repeat("0,", pad), ",") + `],"ok":true,"files":` + files + `}`
		}
		env, err := envelope.Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		r := Save(env, Options{Dir: dir})
		inJSON := string(gate.AppendString(nil, dir)) // as the list writes it: Windows' \ escaped
		return strings.ReplaceAll(string(r.Env.Get("files")), inJSON[1:len(inJSON)-1], "DIR"), strings.ReplaceAll(fmt.Sprint(r.Saved, r.Refused), dir, "DIR")
	}
	want, wantParts := shown(0)
	for _, pad := range []int{1021, 1022, 1023, 1024} {
		if got, parts := shown(pad); got != want || parts != wantParts {
			t.Errorf("after a list of %d entries, Save showed %s and %s; recorded, %s and %s", pad, got, parts, want, wantParts)
		}
	}
	if !strings.Contains(want, "savedTo") || strings.Contains(want, "/x") {
		t.Errorf("Save showed %s", want)
	}
}
