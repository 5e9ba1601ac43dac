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
