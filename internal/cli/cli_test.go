package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      []string
		flags   map[string]string
		pos     []string
		wantErr string
	}{
		{[]string{"--origin", "https://a.b", "--port=9000"}, map[string]string{"origin": "https://a.b", "port": "9000"}, nil, ""},
		{[]string{"call", "scene.describe", `{"a":1}`, "--out", "x.png"}, map[string]string{"out": "x.png"}, []string{"call", "scene.describe", `{"a":1}`}, ""},
		{[]string{"wait", "-1"}, map[string]string{}, []string{"wait", "-1"}, ""},
		{[]string{"--bogus"}, nil, nil, "unknown flag --bogus"},
		{[]string{"--port"}, nil, nil, "needs a value"},
		{[]string{"--version=1"}, nil, nil, "takes no value"},
		{[]string{"--port", "1", "--port", "2"}, nil, nil, "given twice"},
		{[]string{"--", "--status"}, map[string]string{}, []string{"--status"}, ""},
	}
	for _, tt := range tests {
		a, err := parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parse(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(a.flags) != len(tt.flags) || strings.Join(a.pos, " ") != strings.Join(tt.pos, " ") {
			t.Errorf("parse(%q) = %v %q, %v; want %v %q", tt.in, a.flags, a.pos, err, tt.flags, tt.pos)
			continue
		}
		for k, v := range tt.flags {
			if a.flags[k] != v {
				t.Errorf("parse(%q).flags[%s] = %q, want %q", tt.in, k, a.flags[k], v)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "unknown verb"},
		{[]string{"call"}, "call needs a COMMAND"},
		{[]string{"call", "x", "[1]"}, "JSON-ARGS must be a JSON object"},
		{[]string{"wait", "soon"}, "not a positive number"},
		{[]string{"status", "extra"}, "at most 0"},
		{[]string{"status", "--out", "f"}, "--out goes with call"},
		{[]string{"wait", "5", "--timeout", "5"}, "--timeout goes with call, not with wait"},
		{[]string{"--timeout", "5", "--origin", "https://x"}, "--timeout goes with the call verb"},
		{[]string{"call", "x", "--timeout", "soon"}, `call --timeout "soon" is not a number of seconds from 1 to 600 (10 minutes)`},
		{[]string{"call", "x", "--timeout", "0.5"}, "from 1 to 600"},
		{[]string{"call", "x", "--timeout=600.5"}, "from 1 to 600"},
		{[]string{"call", "x", "--timeout", "-5"}, "from 1 to 600"},
		{[]string{"call", "x", "--timeout", "NaN"}, "from 1 to 600"},
		{[]string{"call", "x", "--timeout", "+Inf"}, "from 1 to 600"},
		{[]string{"call", "x", "--timeout", ""}, "from 1 to 600"},
		{[]string{"call", "x", "--timeout"}, "--timeout needs a value"},
		{[]string{"--origin", "ftp://x"}, "scheme must be http or https"},
		{[]string{"--origin", "https://x/path"}, "without a path"},
		{[]string{"--port", "70000", "--origin", "https://x"}, "not a port number"},
		{[]string{"--agent-idle-minutes", "-1", "--origin", "https://x"}, "not a number of minutes"},
		{[]string{"--token", "tok_secretvalue"}, "STITCHSLOP_TOKEN"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), append([]string{"--config-dir", dir}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		if code != 64 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("Main(%q) = %d, stderr %q; want 64 and %q", tt.args, code, stderr.String(), tt.want)
		}
		if strings.Contains(stderr.String()+stdout.String(), "tok_secretvalue") {
			t.Errorf("Main(%q) echoed the token", tt.args)
		}
	}
}
