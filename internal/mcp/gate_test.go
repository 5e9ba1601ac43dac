package mcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGateIsTheOnlyWayToTheModel holds that every tools/call result's
// content is written by resultHead and textBlock, which passes every text
// through security/gate: no other code of this package spells a content
// list or a text block, so none can write page text around the gate
// (issue 19).
func TestGateIsTheOnlyWayToTheModel(t *testing.T) {
	fset, found := token.NewFileSet(), 0
	eachNode(t, fset, func(fn *ast.FuncDecl, n ast.Node) bool {
		lit, isLit := n.(*ast.BasicLit)
		if !isLit || lit.Kind != token.STRING {
			return true
		}
		s, _ := strconv.Unquote(lit.Value)
		if !strings.Contains(s, `"content"`) && !strings.Contains(s, `"text":`) {
			return true
		}
		where := "a declaration"
		if fn != nil {
			where = fn.Name.Name
		}
		if where != "resultHead" && where != "textBlock" && where != "channelNotification" {
			t.Errorf("%s: %s writes a result's content itself (%s); build results with toolResponse or textResult, whose text passes the gate", fset.Position(lit.Pos()), where, lit.Value)
		}
		found++
		return true
	})
	if found == 0 {
		t.Fatal("found no content list at all: the test no longer sees resultHead")
	}
}

// eachNode calls f with every node of this package's non-test files and
// the function declaration it is in (nil outside one), descending while f
// says so.
func eachNode(t *testing.T, fset *token.FileSet, f func(fn *ast.FuncDecl, n ast.Node) bool) {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, _ := d.(*ast.FuncDecl)
			ast.Inspect(d, func(n ast.Node) bool { return f(fn, n) })
		}
	}
}
