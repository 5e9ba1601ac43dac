package threatmodel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryFuzzTargetHasSeeds: every fuzz target in the module has a
// committed seed corpus in Go's own format, testdata/fuzz/<Name>/ beside
// it, so a moved, deleted or mangled folder fails here instead of leaving
// the fuzzer, and `go test`'s run of the seeds, starting from nothing. The
// targets are found by reading the test files, not listed, so a new one is
// held to it too.
func TestEveryFuzzTargetHasSeeds(t *testing.T) {
	root := filepath.Join("..", "..")
	targets := 0
	envelopeSeen := false
	fset := token.NewFileSet()
	err := walkGo(root, func(path string) error {
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || !takesTestingF(fn) {
				continue
			}
			targets++
			name := fn.Name.Name
			dir := filepath.Join(filepath.Dir(path), "testdata", "fuzz", name)
			rel, _ := filepath.Rel(root, dir)
			if filepath.ToSlash(rel) == "internal/envelope/testdata/fuzz/FuzzDecode" {
				envelopeSeen = true
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) == 0 {
				t.Errorf("%s: fuzz target %s has no committed seeds in %s (err=%v)", filepath.ToSlash(path), name, filepath.ToSlash(rel), err)
				continue
			}
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil || !strings.HasPrefix(string(b), "go test fuzz v1\n") {
					t.Errorf("seed %s/%s is not a Go fuzz corpus file (err=%v)", filepath.ToSlash(rel), e.Name(), err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets < 20 || !envelopeSeen {
		t.Fatalf("found %d fuzz targets (envelope's FuzzDecode among them: %v); the walk missed the module's", targets, envelopeSeen)
	}
}

// takesTestingF reports whether fn's one parameter is a *testing.F.
func takesTestingF(fn *ast.FuncDecl) bool {
	p := fn.Type.Params.List
	if len(p) != 1 || len(p[0].Names) > 1 {
		return false
	}
	star, ok := p[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "testing" && sel.Sel.Name == "F"
}
