package threatmodel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// credentialName matches the names the code gives credential values: a
// tab's secret or token, the control-plane key, a spent token's fingerprint.
var credentialName = regexp.MustCompile(`(?i)^(sec|secrets?|tok|tokens?|key|keys|fp|fingerprints?|pairingsecret|password|.*(secret|token)s?)$`)

// TestCredentialsComparedInConstantTime is a small static check: outside
// security/credential, no credential value is compared with ==, != or
// bytes.Equal / strings.EqualFold / reflect.DeepEqual, which all stop at the
// first differing byte and leak its position in their timing (T5). Writing
// `tok == s.Token` in place of credential.Equal(tok, s.Token) fails here. A
// comparison with a constant ("" for "is it set at all?", nil) is allowed.
func TestCredentialsComparedInConstantTime(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata",
				"credential", // the one place that compares, in constant time
				"envelope":   // JSON objects, whose member names are called Key
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && !isConstant(n.X) && !isConstant(n.Y) &&
					(isCredential(n.X) || isCredential(n.Y)) {
					bad = append(bad, fset.Position(n.Pos()).String()+": "+n.Op.String())
				}
			case *ast.CallExpr:
				if name := calleeName(n.Fun); name == "bytes.Equal" || name == "strings.EqualFold" || name == "reflect.DeepEqual" || name == "slices.Equal" {
					for _, a := range n.Args {
						if isCredential(a) {
							bad = append(bad, fset.Position(n.Pos()).String()+": "+name)
							break
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("%s compares a credential; use security/credential.Equal", b)
	}
}

// isCredential reports whether e names a credential: an identifier or a
// field whose name says so, or a call that returns one (x.Header.Get of the
// key header is caught by its argument's name elsewhere; here, by its own).
func isCredential(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return credentialName.MatchString(e.Name)
	case *ast.SelectorExpr:
		return credentialName.MatchString(e.Sel.Name)
	case *ast.ParenExpr:
		return isCredential(e.X)
	case *ast.CallExpr:
		for _, a := range e.Args {
			if sel, ok := a.(*ast.Ident); ok && strings.Contains(strings.ToLower(sel.Name), "keyheader") {
				return true
			}
		}
	}
	return false
}

// isConstant reports whether e is a literal ("", "dataUrl", 0), nil, or a
// json.Delim: a value every reader of the code knows, so comparing with it
// reveals nothing secret.
func isConstant(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return e.Name == "nil"
	case *ast.CallExpr:
		return calleeName(e.Fun) == "json.Delim"
	}
	return false
}

func calleeName(fun ast.Expr) string {
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok {
			return x.Name + "." + sel.Sel.Name
		}
	}
	return ""
}
