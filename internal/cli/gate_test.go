package cli

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"testing"
)

// TestGateIsTheOnlyWayToStdout holds that the verbs that print what a
// bridge or a page answered (verbs.go, and stitchslop's listen.go and
// doctor.go in internal/toolbox, whose report holds what other bridges'
// /status said) write stdout only through emit or emitDoc (cli.EmitDoc there), which
// passes every document through security/gate (issue 19).
func TestGateIsTheOnlyWayToStdout(t *testing.T) {
	fset := token.NewFileSet()
	emits := 0
	for _, name := range []string{"verbs.go", "../toolbox/listen.go", "../toolbox/doctor.go"} {
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
	if emits < 5 {
		t.Errorf("found %d calls of emit in verbs.go, listen.go and doctor.go, want every print there to be one", emits)
	}
}
