package gate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// longRemedy is longer than a Remedy may make a note (maxRemedy), with a
// character that JSON escapes, so that notes are as long as they can be.
var longRemedy = Guard{Remedy: func(Left) string { return strings.Repeat(`"\`, 400) }}

// emojiName is a member name of n characters that no path shows plain:
// its segment is quoted in ASCII, 10 bytes a character.
func emojiName(i, n int) string {
	return fmt.Sprintf("%03d", i) + strings.Repeat("\U0001F600", n-3)
}

// worst are replies shaped to pass the bound, each a way found or
// reasoned: names nested deep (each level's first entry), escapes of 12
// bytes a character, strings of many bytes a character after others,
// strings just under MaxDataURL bytes of invalid UTF-8 (three bytes each
// once cleaned), long paths of quoted names with long remedies at every
// cut, and containers closing thousands deep.
func worst() map[string]string {
	var names, deepEmoji, invalid, escapes strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&names, `{"%06d%s":`, i, strings.Repeat("n", 994))
	}
	names.WriteString("1" + strings.Repeat("}", 3000))
	for i := range 2000 {
		fmt.Fprintf(&deepEmoji, `{"a":1,%q:[%q,`, emojiName(i, 60), strings.Repeat("x", MaxDataURL))
	}
	deepEmoji.WriteString(`"` + strings.Repeat("y", 3*MaxString) + `"`)
	for range 2000 {
		deepEmoji.WriteString(`],"b":"` + strings.Repeat("z", 3000) + `"}`)
	}
	invalid.WriteString(`{"s":[`)
	for i := range 1500 {
		if i > 0 {
			invalid.WriteByte(',')
		}
		invalid.WriteString(`"` + strings.Repeat("\xff", MaxDataURL) + `"`)
	}
	invalid.WriteString(`]}`)
	escapes.WriteString(`[`)
	for i := range 5 {
		if i > 0 {
			escapes.WriteByte(',')
		}
		escapes.WriteString(`"` + strings.Repeat(`\ud83d\ude00`, MaxString-i) + `"`)
	}
	escapes.WriteString(`]`)
	return map[string]string{
		"names nested 3,000 deep":                   names.String(),
		"long paths, cut strings, a note a level":   deepEmoji.String(),
		"strings of invalid UTF-8 under MaxDataURL": invalid.String(),
		"escapes of 12 bytes a character":           escapes.String(),
		"ASCII, then emoji": `{"a1":"` + strings.Repeat("a", 99_000) + `","a2":"` + strings.Repeat("a", 99_000) +
			`","b":"` + strings.Repeat("\U0001F600", 99_000) + `"}`,
		"arrays 10,000 deep": strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000),
	}
}

// TestSec_GateBoundIsMaxGuarded: whatever a reply holds, the gate writes
// at most MaxGuarded bytes of it (THREAT_MODEL.md T9), as JSON. Before
// every entry, the first included, checked the budget and every long
// string its bytes, names nested 3,000 deep came out at 3 MB and a string
// of escapes at 1.2 MB.
func TestSec_GateBoundIsMaxGuarded(t *testing.T) {
	for name, doc := range worst() {
		t.Run(name, func(t *testing.T) {
			out, _ := longRemedy.walk(nil, []byte(doc), nil, 0)
			if !json.Valid(out) || len(out) > MaxGuarded {
				t.Errorf("walk(%d bytes) = %d bytes (valid %v), want at most MaxGuarded, %d", len(doc), len(out), json.Valid(out), MaxGuarded)
			}
			if doc[0] != '{' {
				return
			}
			// The same as a reply's members, as the exits write them.
			var kv []string
			if !Each([]byte(doc), func(name string, value []byte) bool {
				kv = append(kv, name, string(value))
				return true
			}) {
				kv = []string{"v", doc}
			}
			out = longRemedy.AppendObject(nil, members(kv...), nil)
			if !json.Valid(out) || len(out) > MaxGuarded {
				t.Errorf("AppendObject(%d bytes) = %d bytes (valid %v), want at most MaxGuarded, %d", len(doc), len(out), json.Valid(out), MaxGuarded)
			}
		})
	}
}

// TestNoteIsBounded: a note is at most maxNote bytes as JSON, however
// deep and oddly named its place and however long the Remedy's words, so
// what may pass the ceiling (maxOver) is the gate's own.
func TestNoteIsBounded(t *testing.T) {
	stack := make([]frame, 100)
	for i := range stack {
		stack[i] = frame{obj: true, key: AppendString(nil, emojiName(i, 60)), n: 1}
	}
	for _, l := range []Left{{Name: true}, {DataURL: true}, {Number: true}, {}} {
		l.At = pathOf(AppendString(nil, emojiName(0, 60)), stack)
		n := AppendString(nil, longRemedy.note(1<<62, l))
		if len(n) > maxNote {
			t.Errorf("note(%+v) = %d bytes, want at most maxNote, %d", l, len(n), maxNote)
		}
		if n := AppendString(nil, longRemedy.notMore(1<<62, true, l)); len(n) > maxNote {
			t.Errorf("notMore = %d bytes, want at most maxNote, %d", len(n), maxNote)
		}
	}
	if maxNote > maxElement {
		t.Errorf("maxNote (%d) > maxElement (%d): maxOver counts a note as an element", maxNote, maxElement)
	}
}

// TestMaxTextHoldsAGuardedReply: the longest say line a reply may have
// (MaxString characters of four bytes, lines that Unmark marks) and a
// guarded envelope of MaxGuarded bytes pass gate.Text uncut, so the
// backstop never cuts a reply's JSON. Before, MaxText (464 KB) was less
// than a guarded envelope could be.
func TestMaxTextHoldsAGuardedReply(t *testing.T) {
	for _, say := range []string{
		strings.Repeat("\U0001F600", MaxString),
		strings.Repeat("[bridge\n", MaxString/8),
	} {
		say = Unmark(say)
		if len(say) > maxSay {
			t.Errorf("a say line of %d bytes, want at most maxSay, %d", len(say), maxSay)
		}
	}
	text := strings.Repeat("\U0001F600", maxSay/4) + "\n\n" + `"` + strings.Repeat("x", MaxGuarded-2) + `"`
	if got := Text(text); got != text {
		t.Errorf("Text cut a reply of %d bytes (MaxText %d)", len(text), MaxText)
	}
}
