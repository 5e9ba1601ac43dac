package page

import (
	"encoding/json"
	"testing"
)

// FuzzParseFirstFrame: any bytes a tab sends first are either refused with
// an error or yield string credentials that were really in the object.
func FuzzParseFirstFrame(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseFirstFrame(b)
		if err != nil {
			if c != (Credentials{}) {
				t.Fatalf("ParseFirstFrame(%q) = %+v with error %v, want zero credentials", b, c, err)
			}
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			t.Fatalf("ParseFirstFrame(%q) accepted something that is not a JSON object", b)
		}
		for key, got := range map[string]string{"token": c.Token, "secret": c.Secret} {
			var want string
			if raw, ok := m[key]; ok {
				json.Unmarshal(raw, &want)
			}
			if got != want {
				t.Fatalf("ParseFirstFrame(%q).%s = %q, want %q", b, key, got, want)
			}
		}
	})
}

func TestParseFirstFrame(t *testing.T) {
	tests := []struct {
		in      string
		want    Credentials
		wantErr bool
	}{
		{`{"token":"tok_1"}`, Credentials{Token: "tok_1"}, false},
		{`{"secret":"s"}`, Credentials{Secret: "s"}, false},
		{`{"secret":"s","token":"t"}`, Credentials{Token: "t", Secret: "s"}, false},
		{`{"token":5,"secret":null}`, Credentials{}, false},
		{`{}`, Credentials{}, false},
		{`null`, Credentials{}, true},
		{`[]`, Credentials{}, true},
		{`"tok"`, Credentials{}, true},
		{`{"token":"t"`, Credentials{}, true},
		{`{"token":"a","token":"b"}`, Credentials{}, true},      // one name once (envelope.Decode)
		{`{"token":"a","to\u006ben":"b"}`, Credentials{}, true}, // however it is spelt
		{``, Credentials{}, true},
	}
	for _, tt := range tests {
		got, err := ParseFirstFrame([]byte(tt.in))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseFirstFrame(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
