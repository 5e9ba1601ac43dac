package envelope

import (
	"strings"
	"testing"
)

// TestAttack_EntriesAcrossTheRecordsBudget (held): a list before the
// lists of a reply spends the door's records (maxRecs) up to each point
// from 34 short of the budget to 6 past it, so that the budget runs out at
// each record of the lists after it: a head, a scalar entry, an object
// entry, a member of a scalar, of an object, of a list of objects, an
// escaped name, a nested list entry. Every list still reads as
// encoding/json reads it (entriesAsRead), recorded, dropped and streamed,
// or recorded after one dropped.
func TestAttack_EntriesAcrossTheRecordsBudget(t *testing.T) {
	for _, body := range []string{
		`"files":[{"name":"a.png","dataUrl":"data:image/png;base64,AA","meta":{"w":1,"t":["x"]}},7,[1,{"a":2}],{}, {"\u0064ataUrl" : "x" , "n":[[]]} ,"s",null],"n":[],"o":{"a":[1]},"z":[{"a":{"b":[{"c":1}]},"d":[]},{"e":1,"f":2,"g":3}]`,
		`"a":[{"x":{"y":[1,2]},"z":[{"q":1}]}],"b":[1,2,3],"c":[[[[{"a":1}]]],{"a":[{"b":2}],"c":{"d":[3]}}],"d" : [ { "\u0065" : 1 , "f" : [ ] } ]`,
	} {
		for k := maxRecs - 34; k <= maxRecs+6; k++ {
			in := `{"pad":[` + strings.TrimSuffix(strings.Repeat("0,", k), ",") + `],` + body + `}`
			r, err := Decode([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			entriesAsRead(t, r)
		}
	}
}
