package toollist

import (
	"fmt"
	"strings"
	"testing"
)

// benchList is a tab's list of 40 tools of the shape a page sends: a
// description, a schema of properties a few levels deep, annotations.
var benchList = func() []byte {
	var items []string
	for i := range 40 {
		items = append(items, fmt.Sprintf(`{"name":"tool.%d","title":"Tool %d","description":"%s",`+
			`"inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"The shape's id."},`+
			`"limit":{"type":"integer","minimum":1,"maximum":100},"at":{"type":"array","items":{"type":"number"}},`+
			`"style":{"type":"object","properties":{"colour":{"type":"string","enum":["red","green","blue"]}}}},"required":["id"]},`+
			`"annotations":{"readOnlyHint":true,"idempotentHint":true}}`, i, i, strings.Repeat("Does a thing to the design. ", 8)))
	}
	return []byte("[" + strings.Join(items, ",") + "]")
}()

// BenchmarkSanitize reads a frame of benchList as a tab's comes: the door
// hands the list to Sanitize.
func BenchmarkSanitize(b *testing.B) {
	f := frame(benchList)
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for b.Loop() {
		read(b, f, nil)
	}
}
