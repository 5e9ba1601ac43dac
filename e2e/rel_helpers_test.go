package e2e

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"
)

// Helpers of the reliability and load tests (issue 13).

// callEnv posts one /call and decodes its envelope; safe from any
// goroutine (it reports errors instead of failing the test).
func callEnv(port int, key string, body map[string]any) (map[string]any, error) {
	status, data, err := ctlRaw(port, "POST", "/call", body, keyHeader(key), "")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("HTTP %d, body %q is not a JSON object: %v", status, data, err)
	}
	return m, nil
}

// maskedFrame is one client frame (RFC 6455 §5.2: a client masks), with
// fin and opcode as given.
func maskedFrame(fin bool, op byte, payload []byte) []byte {
	h := op
	if fin {
		h |= 0x80
	}
	out := []byte{h}
	n := len(payload)
	switch {
	case n < 126:
		out = append(out, 0x80|byte(n))
	case n <= 0xFFFF:
		out = append(out, 0x80|126, byte(n>>8), byte(n))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	var key [4]byte
	rand.Read(key[:])
	out = append(out, key[:]...)
	for i, c := range payload {
		out = append(out, c^key[i%4])
	}
	return out
}

// fragmented is msg as a text message split into parts fragments, with a
// ping between every tenth (control frames may come between fragments).
func fragmented(msg []byte, parts int) []byte {
	var out []byte
	size := max(1, len(msg)/parts)
	for i := 0; i < len(msg); i += size {
		end := min(len(msg), i+size)
		op := byte(0x0) // continuation
		if i == 0 {
			op = 0x1 // text
		}
		out = append(out, maskedFrame(end == len(msg), op, msg[i:end])...)
		if (i/size)%10 == 5 {
			out = append(out, maskedFrame(true, 0x9, []byte("p"))...)
		}
	}
	return out
}

// wantFailure checks that env is the bridge's own failure with one of codes.
func wantFailure(t *testing.T, what string, env map[string]any, codes ...string) {
	t.Helper()
	if env["ok"] != false {
		t.Errorf("%s: got %v, want ok:false", what, env)
		return
	}
	for _, c := range codes {
		if env["error"] == c {
			return
		}
	}
	t.Errorf("%s: got error %v (%v), want one of %q", what, env["error"], env, codes)
}

// frameOf decodes a raw frame as the page reader does.
func frameOf(data []byte) frame {
	f := frame{raw: data}
	json.Unmarshal(data, &f.m)
	return f
}
