package envelope

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// The door and the exit together, as a relay's reply takes them: read
// once, then written through the gate to the model.
func benchDoor(b *testing.B, reply string) {
	in := []byte(reply)
	g := gate.Guard{Remedy: func(gate.Left) string { return "R" }}
	var dst []byte
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Decode(in)
		if err != nil {
			b.Fatal(err)
		}
		dst = g.AppendObject(dst[:0], r.Members().All(false), r.Members().All(true))
	}
}

// A relay's small reply, flat.
func BenchmarkDoorSmall(b *testing.B) {
	benchDoor(b, `{"id":12,"ok":true,"say":"Done: 3 shapes.","count":3,"name":"rose.pes"}`)
}

// A small reply with a short list of objects.
func BenchmarkDoorList(b *testing.B) {
	benchDoor(b, `{"id":12,"ok":true,"say":"Done: 3 shapes.","shapes":[{"id":"a1","kind":"satin","stitches":1200},{"id":"a2","kind":"fill","stitches":5400}]}`)
}

// An 8 MiB image, as a render answers.
func BenchmarkDoorImage(b *testing.B) {
	benchDoor(b, `{"id":12,"ok":true,"say":"Here.","dataUrl":"data:image/png;base64,`+strings.Repeat("QUJD", 8<<20/3/4*4)+`"}`)
}

// A list of 5,000 objects: past the gate's item cap.
func BenchmarkDoorBigList(b *testing.B) {
	benchDoor(b, `{"id":12,"ok":true,"items":[`+strings.Repeat(`{"x":1,"y":"ab"},`, 4999)+`{"x":1,"y":"ab"}]}`)
}
