package cli

import (
	"bytes"
	"encoding/json"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// TestGateIsTheOnlyWayToStdout holds that the verbs that print what a
// bridge or a page answered (verbs.go, and stitchslop's doctor.go in
// internal/toolbox, whose report holds what other bridges' /status said)
// write stdout only through emit or emitDoc (cli.EmitDoc there), which
// passes every document through security/gate (issue 19). listen writes
// lines the gate wrote itself (internal/toolbox's TestListenPrintsOnlyLines).
func TestGateIsTheOnlyWayToStdout(t *testing.T) {
	fset := token.NewFileSet()
	emits := 0
	for _, name := range []string{"verbs.go", "../toolbox/doctor.go"} {
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				if fn.Name == "emit" || fn.Name == "emitDoc" {
					emits++
				}
			case *ast.SelectorExpr:
				if fn.Sel.Name == "NewEncoder" || fn.Sel.Name == "Fprint" || fn.Sel.Name == "Fprintf" || fn.Sel.Name == "Fprintln" || fn.Sel.Name == "WriteString" {
					t.Errorf("%s: %s writes around emit", fset.Position(call.Pos()), fn.Sel.Name)
				}
				if id, ok := fn.X.(*ast.Ident); ok && id.Name == "stdout" {
					t.Errorf("%s: stdout.%s writes around emit", fset.Position(call.Pos()), fn.Sel.Name)
				}
			}
			return true
		})
	}
	if emits < 4 {
		t.Errorf("found %d calls of emit in verbs.go and doctor.go, want every print there to be one", emits)
	}
}

// TestEmitBoundsTheWholeReply: the shell's stdout is bounded at the top
// level of a reply as below it (gate.Guard.AppendObject): about
// gate.MaxTotal bytes, at most gate.MaxItems members and a note; with
// --raw, whole.
func TestEmitBoundsTheWholeReply(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"id":1,"ok":true`)
	s := strings.Repeat("x", gate.MaxString-1)
	for i := range 300 {
		b.WriteString(`,"m` + strconv.Itoa(i) + `":"` + s + `"`)
	}
	b.WriteString(`}`)
	r, err := envelope.Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	emit(&out, r, args{flags: map[string]string{}})
	if !json.Valid(out.Bytes()) || out.Len() > gate.MaxTotal+2*gate.MaxString {
		t.Errorf("emit of %d bytes: %d bytes on stdout (valid %v), want about %d", b.Len(), out.Len(), json.Valid(out.Bytes()), gate.MaxTotal)
	}
	out.Reset()
	emit(&out, r, args{flags: map[string]string{"raw": ""}})
	if out.Len() < b.Len() {
		t.Errorf("emit --raw of %d bytes: %d bytes, want it whole", b.Len(), out.Len())
	}

	b.Reset()
	b.WriteString(`{"ok":true`)
	for i := range 9000 {
		b.WriteString(`,"k` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString(`}`)
	if r, err = envelope.Decode(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	emit(&out, r, args{flags: map[string]string{}})
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || len(m) != gate.MaxItems+1 {
		t.Fatalf("emit of 9,001 members: %d on stdout (%v), want %d and the note", len(m), err, gate.MaxItems)
	}
	if note := m["[bridge]"]; note != "[bridge: 7,001 more members were left out here (at the top level); run the call again with --raw to print it whole]" {
		t.Errorf("emit of 9,001 members: the note is %q", note)
	}
}
