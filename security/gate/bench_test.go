package gate

import (
	"strings"
	"testing"
)

// An 11 MB image reply, as the shell prints one without --out.
func BenchmarkApplyImage(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"say":"Here.","dataUrl":"data:image/png;base64,` + strings.Repeat("QUJD", 11<<20/4) + `"}`)
	g := Guard{Remedy: func(Left) string { return "R" }}
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		g.Apply(env)
	}
}

// A reply with nothing to change, as most are.
func BenchmarkApplySmall(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"say":"Done: 3 shapes.","shapes":[{"id":"a1","kind":"satin","stitches":1200},{"id":"a2","kind":"fill","stitches":5400}]}`)
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		Guard{}.Apply(env)
	}
}

// A tool result's text of 100 KB, written as a JSON string.
func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat(`{"name":"design é.pes","n":12}`+"\n", 100_000/31)
	b.SetBytes(int64(len(s)))
	var dst []byte
	for b.Loop() {
		dst = AppendString(dst[:0], s)
	}
}
