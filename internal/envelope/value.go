package envelope

import (
	"bytes"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// The door's reader: a jsontext.Decoder reading a piece of bytes in
// place (over a bytes.Buffer, jsontext reads the buffer's own bytes, with
// no copy), pooled, so that a reply costs no decoder of its own.
type reader struct {
	d  jsontext.Decoder
	bb bytes.Buffer
}

var readers = sync.Pool{New: func() any { return new(reader) }}

// empty is what a free reader reads, so that the pool holds no reply.
var empty bytes.Buffer

func newReader(b []byte) *reader {
	rd := readers.Get().(*reader)
	rd.bb = *bytes.NewBuffer(b)
	rd.d.Reset(&rd.bb)
	return rd
}

func (rd *reader) free() {
	rd.bb = bytes.Buffer{}
	rd.d.Reset(&empty)
	readers.Put(rd)
}

// The readers of a value the door passed (a member of a Reply, an entry of
// its lists) are security/gate's, below the door, so that the gate and the
// tool list read with them too.

// Each calls f with each member of the object v, in order (gate.Each).
func Each(v []byte, f func(name string, value []byte) bool) bool { return gate.Each(v, f) }

// Items calls f with each element of the array v, in order (gate.Items).
func Items(v []byte, f func(value []byte) bool) bool { return gate.Items(v, f) }

// Get returns the value of the object v's member called name (gate.Get).
func Get(v []byte, name string) []byte { return gate.Get(v, name) }

// String returns v decoded if it is a JSON string (gate.String).
func String(v []byte) (string, bool) { return gate.String(v) }

// Plain returns the contents of the JSON string v when it holds no
// escape (gate.Plain).
func Plain(v []byte) ([]byte, bool) { return gate.Plain(v) }

// Int returns v if it is a JSON integer that fits an int64 (gate.Int).
func Int(v []byte) (int64, bool) { return gate.Int(v) }

// IsNull reports whether v is absent or JSON null (gate.IsNull).
func IsNull(v []byte) bool { return gate.IsNull(v) }

// IsTrue reports whether v is JSON true (gate.IsTrue).
func IsTrue(v []byte) bool { return gate.IsTrue(v) }

// Valid reports whether b is one valid JSON value (gate.Valid).
func Valid(b []byte) bool { return gate.Valid(b) }
