package toolbox

import (
	"encoding/json"
	"testing"
)

// TestSec_ListenAtMsDecodes: a listen line's atMs is "a number or null"
// (protocol.md §7.16) for the agent's monitor to read. A tab that sends a
// number no float64 holds (1e999) must not make a line its reader cannot
// decode: Go's encoding/json refuses the whole line ("cannot unmarshal
// number 1e999"), so the utterance with it is lost to a Go monitor, and a
// JavaScript one reads Infinity. The old listen parsed atMs
// (strconv.ParseFloat) and printed null for it.
//
// Fails on main: number (internal/toolbox/listen.go) passes any JSON
// number of at most maxNumber bytes as the tab wrote it.
func TestSec_ListenAtMsDecodes(t *testing.T) {
	for _, at := range []string{"1e999", "-1e999", "1E400"} {
		answer, err := door([]byte(`{"ok":true,"heard":[{"text":"make it red","atMs":`+at+`}]}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		lines, _ := heardLines(readVoice(answer))
		if len(lines) != 1 {
			t.Fatalf("atMs %s: %d lines, want 1", at, len(lines))
		}
		var l struct {
			Heard string   `json:"heard"`
			AtMs  *float64 `json:"atMs"`
		}
		if err := json.Unmarshal(lines[0], &l); err != nil || l.Heard != "make it red" {
			t.Errorf("atMs %s: line %s does not decode as {heard, atMs number or null}: %v", at, lines[0], err)
		}
	}
}

// TestSec_ListenVoiceSupportNumbersDecode: a voiceSupport that is not a
// string goes on as the tab wrote it, so a number no float64 holds in it
// would make the voice-off line one Go's encoding/json refuses: the line's
// encoder (the gate) writes a note in its place. Failed while the gate
// passed numbers as they came: the line held 1e999.
func TestSec_ListenVoiceSupportNumbersDecode(t *testing.T) {
	for _, v := range []string{`1e999`, `{"speech":-1E400}`, `[1,[2e9999]]`} {
		got := eventLine("voice-off", boundSupport([]byte(v)), nil)
		if err := json.Unmarshal(got, new(any)); err != nil {
			t.Errorf("voiceSupport %s: line %s does not decode: %v", v, got, err)
		}
	}
	for _, v := range []string{`{"speech":false,"n":1e300}`, `[0,-0.5,1e-400]`} {
		if got := string(boundSupport([]byte(v))); got != v {
			t.Errorf("voiceSupport %s = %s; want it as the tab wrote it", v, got)
		}
	}
}
