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
	d    jsontext.Decoder
	r    gate.Reader // d, as names are read with it
	bb   bytes.Buffer
	recs []rec // the door's records of a reply's lists, copied out (lists)
}

var readers = sync.Pool{New: func() any { return new(reader) }}

// empty is what a free reader reads, so that the pool holds no reply.
var empty bytes.Buffer

func newReader(b []byte, opts ...jsontext.Options) *reader {
	rd := readers.Get().(*reader)
	rd.bb = *bytes.NewBuffer(b)
	rd.d.Reset(&rd.bb, opts...)
	rd.r.Reset(&rd.d)
	return rd
}

func (rd *reader) free() {
	rd.bb = bytes.Buffer{}
	if rd.r.Held() > heldKept {
		rd.d = jsontext.Decoder{} // its names, which Reset keeps, with it
	}
	rd.d.Reset(&empty)
	readers.Put(rd)
}

// heldKept is how many bytes of names (gate.Reader.Held) a pooled reader
// may keep for the next reply: jsontext's Reset keeps the names it held,
// and past this they are let go with the decoder.
const heldKept = 64 << 10
