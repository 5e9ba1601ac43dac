package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// Limits small enough for fuzzed inputs to cross them.
const (
	fuzzDataURL = 8
	fuzzString  = 32
	fuzzItems   = 2
	fuzzTotal   = 64
)

// FuzzGuard: on any input, the guard neither panics nor hangs. On valid
// JSON its output is valid JSON with the same tokens in the same order,
// except each string over a limit (as encoding/json decodes and counts it)
// and each number over MaxNumber bytes or past float64's range, each a
// note saying which, and each member whose name, cleaned,
// is Reserved, which is left out; when nothing is over or left out, the
// compact output is json.Compact's and Apply returns the document
// untouched. With a small budget its output is bounded as the package
// says (capBound), whatever the nesting or the escapes.
func FuzzGuard(f *testing.F) {
	old := limits
	limits.dataURL, limits.str = fuzzDataURL, fuzzString
	f.Cleanup(func() { limits = old })
	f.Add([]byte(`{"id":1,"ok":true,"say":"Done.","members":[{"text":"0123456789012345678901234567890123456789"}]}`))
	f.Add([]byte(`{"files":[{"name":"a.png","dataUrl":"data:image/png;base64,iVBORw0KGgo="}],"n":-1.5e3}`))
	f.Add([]byte(`{"0123456789012345678901234567890123456789":"data\u003a,x\ud83d\ude00\ud800\u00e9é\"\\"}`))
	f.Add([]byte(`{"[bridge]":1,"a":{"b":0,"\u005bbridge]":[1,{"b":2}],"c":3},"\u200b[bridge: x]":{}}`))
	// Names nested deep (each level's first entry) and a string of escapes
	// of 12 bytes a character: with the fuzz limits, each over capBound
	// before the budget was checked at every entry and every long string's
	// bytes counted.
	f.Add([]byte(strings.Repeat(`{"n0000000":`, 40) + "1" + strings.Repeat("}", 40)))
	f.Add([]byte(`[[[["` + strings.Repeat(`\ud83d\ude00`, 30) + `"]]]]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		g := Guard{Remedy: func(Left) string { return "R" }}
		out, _ := g.walk(nil, doc, nil, 0)
		applied, changed := Guard{}.Apply(doc)
		// With an item cap and a budget this small, short inputs reach the
		// paths that leave the rest of a container out, on any input: the
		// walk ends, and on valid JSON its output is valid JSON, bounded.
		full := limits
		limits.items, limits.total = fuzzItems, fuzzTotal
		capped, _ := g.walk(nil, doc, nil, 0)
		limits = full
		if !json.Valid(doc) {
			return
		}
		if !json.Valid(capped) {
			t.Fatalf("guard(%q) with %d items and %d bytes = %q, not valid JSON", doc, fuzzItems, fuzzTotal, capped)
		}
		if n := capBound(capped); len(capped) > n {
			t.Fatalf("guard(%q) with %d items and %d bytes = %d bytes %q, want at most %d", doc, fuzzItems, fuzzTotal, len(capped), capped, n)
		}
		if !json.Valid(out) {
			t.Fatalf("guard(%q) = %q, not valid JSON", doc, out)
		}
		in, err := tokens(doc)
		if err != nil {
			t.Skip("encoding/json's decoder refuses what json.Valid accepts (depth)")
		}
		in, dropped := withoutReserved(in)
		got, err := tokens(out)
		if err != nil || len(got) != len(in) {
			t.Fatalf("guard(%q) = %q: %d tokens (%v), want %d", doc, out, len(got), err, len(in))
		}
		// Invalid UTF-8, only ever inside a string of valid JSON, comes out
		// as U+FFFD: a change; so does an escaped lone surrogate (outside
		// strings valid JSON has no backslash, so the whole document is
		// looked at).
		anyOver := !jsontext.Value(doc).IsValid(jsontext.AllowDuplicateNames(true)) || dropped
		for i, tok := range in {
			s, isString := tok.(string)
			if isString && !overLimit(s) {
				// Cleaned, and otherwise as it came; one that reads as a
				// note begins ("[bridge") has its "[" escaped: a change.
				if want := Clean(s); got[i] != want {
					t.Fatalf("guard(%q) = %q: token %d is %q, want %q", doc, out, i, got[i], want)
				}
				if Clean(s) != s || strings.HasPrefix(Clean(s), "[bridge") {
					anyOver = true
				}
				continue
			}
			if num, isNum := tok.(json.Number); isNum {
				_, err := num.Float64()
				want := "[bridge: a " + thousands(len(num)) + "-character number "
				if len(num) <= MaxNumber {
					want = "[bridge: a number past float64's range "
				}
				if len(num) > MaxNumber || err != nil {
					anyOver = true
					if n, _ := got[i].(string); !strings.HasPrefix(n, want) {
						t.Fatalf("guard(%q) = %q: token %d is %q, want a note starting %q", doc, out, i, n, want)
					}
					continue
				}
			}
			if !isString {
				if got[i] != tok {
					t.Fatalf("guard(%q) = %q: token %d is %#v, want %#v as it came", doc, out, i, got[i], tok)
				}
				continue
			}
			anyOver = true
			n, _ := got[i].(string)
			if want := "[bridge: a " + thousands(utf8.RuneCountInString(s)) + "-character "; !strings.HasPrefix(n, want) || !strings.HasSuffix(n, "; R]") {
				t.Fatalf("guard(%q) = %q: token %d is %q, want a note starting %q", doc, out, i, n, want)
			}
		}
		for _, tok := range got {
			if s, ok := tok.(string); ok && strings.IndexFunc(s, invisible) >= 0 {
				t.Fatalf("guard(%q) = %q: %q still holds an invisible character", doc, out, s)
			}
		}
		if changed != anyOver {
			t.Fatalf("Apply(%q) says changed %v, want %v", doc, changed, anyOver)
		}
		if !anyOver {
			var want bytes.Buffer
			json.Compact(&want, doc)
			if !bytes.Equal(out, want.Bytes()) {
				t.Fatalf("guard(%q) = %q, want json.Compact's %q", doc, out, want.Bytes())
			}
			if !bytes.Equal(applied, doc) {
				t.Fatalf("Apply(%q) = %q, want the document as it came", doc, applied)
			}
		}
	})
}

// capBound is the bound, written apart from the code, of what the guard
// writes with the fuzz limits: the ceiling (fuzzTotal+fuzzString), and past
// it the last entry begun within fuzzTotal, its name and value each one
// element (a string of at most fuzzDataURL raw bytes, three a byte once
// invalid UTF-8 is cleaned; a number of MaxNumber; a note, as long as the
// longest in out), then one note of what its container left out.
func capBound(out []byte) int {
	elem := max(3*fuzzDataURL+2, MaxNumber)
	toks, _ := tokens(out)
	for _, tok := range toks {
		if s, ok := tok.(string); ok && strings.HasPrefix(s, "[bridge") {
			elem = max(elem, len(AppendString(nil, s)))
		}
	}
	return fuzzTotal + fuzzString + 3*elem + 16
}

// overLimit is the rule, written apart from the code: a string decoded by
// encoding/json is over if it is a data URL of more than fuzzDataURL
// characters or any string of more than fuzzString.
func overLimit(s string) bool {
	n := utf8.RuneCountInString(s)
	isData := len(s) >= 5 && strings.EqualFold(s[:5], "data:")
	return n > fuzzString || (isData && n > fuzzDataURL)
}

// tokens decodes doc into its tokens, member names included.
func tokens(doc []byte) ([]json.Token, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var out []json.Token
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, tok)
	}
}

// invisible is what Clean removes: the one rule's characters but the
// layout of running text.
func invisible(r rune) bool { return r != '\t' && r != '\n' && unprintable.Is(r) }

// withoutReserved is toks without the members whose names, cleaned, are
// Reserved (name and value, however deep the value), and whether there
// were any: the rule, written apart from the code.
func withoutReserved(toks []json.Token) (out []json.Token, dropped bool) {
	type level struct{ obj, wantKey bool }
	var stack []level
	skip := 0 // > 0 while inside a value being left out: its nesting
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		d, isDelim := tok.(json.Delim)
		if skip > 0 {
			switch d {
			case '{', '[':
				skip++
			case '}', ']':
				skip--
			}
			if skip == 1 && (!isDelim || d == '}' || d == ']') {
				skip = 0 // the left-out value ended
				if len(stack) > 0 {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		}
		if isDelim && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantKey = true
			}
			out = append(out, tok)
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].wantKey {
			stack[len(stack)-1].wantKey = false
			if name, _ := tok.(string); Reserved(Clean(name)) {
				dropped, skip = true, 1
				continue
			}
			out = append(out, tok)
			continue
		}
		if isDelim { // '{' or '['
			stack = append(stack, level{obj: d == '{', wantKey: d == '{'})
			out = append(out, tok)
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].wantKey = true
		}
		out = append(out, tok)
	}
	return out, dropped
}
