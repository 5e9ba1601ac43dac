package threatmodel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// jsonWriters are the JSON encoders of each package that has them, by
// import path: what writes JSON rather than reads it.
var jsonWriters = map[string][]string{
	"encoding/json":                               {"Marshal", "MarshalIndent", "NewEncoder", "Encoder", "Compact", "Indent", "HTMLEscape"},
	"github.com/go-json-experiment/json":          {"Marshal", "MarshalWrite", "MarshalEncode"},
	"github.com/go-json-experiment/json/jsontext": {"NewEncoder", "Encoder", "AppendQuote"},
}

// otherEncoders are the writers of JSON outside security/gate, by file and
// function ("*" for every function of a folder), each with why it is not
// an exit's: no page's or leader's bytes pass there, or another helper's
// change is still to come. A new one fails TestOneEncoderPerExit, and so
// does an entry here that names no writer any more.
var otherEncoders = map[string]string{
	// The files exit: the bridge's own files, written and read by
	// encoding/json alone (issue 34 allows it); what they hold is the
	// bridge's own (secrets, stamps, origins origin.Parse checked), and a
	// member of pairing.json the bridge does not know is kept as it was.
	"internal/pairing/pairing.go write": "pairing.json",
	"internal/pairing/pairing.go set":   "pairing.json's members",
	"internal/session/session.go Write": "the session file",
	// The tools program: client configuration snippets and the demo
	// page's own answers, none of them holding a page's words.
	"internal/setup *": "setup's snippets and setup --json",
	"internal/demo *":  "the demo page's answers",
}

// TestOneEncoderPerExit: outside security/gate, whose Marshal is the one
// encoder of every exit (MCP stdout, the control plane's answers the shell
// prints, the frames to the tab, the shell's own documents) and whose
// AppendString and Guard write by its rule, no code of the binaries
// (internal, security, cmd) writes JSON with an encoder of its own but
// those otherEncoders names. Each encoder has its own character rule
// (encoding/json writes < as \u003c, jsontext as it is), so a second one at
// an exit writes one string of a page's as two byte forms (issue 34).
// encoding/json may still read. The writers are found by what each file
// imports, whatever name it gives the package.
func TestOneEncoderPerExit(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	found := map[string]bool{}
	var bad []string
	for _, top := range []string{"internal", "security", "cmd"} {
		err := walkGo(filepath.Join(root, top), func(path string) error {
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "security/gate/") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, w := range writersIn(f) {
				pos := fset.Position(w.pos)
				key := rel + " " + w.fn
				dirKey := filepath.ToSlash(filepath.Dir(rel)) + " *"
				switch {
				case otherEncoders[key] != "":
					found[key] = true
				case otherEncoders[dirKey] != "":
					found[dirKey] = true
				default:
					in := w.fn
					if in == "" {
						in = "at package level"
					}
					bad = append(bad, rel+":"+strconv.Itoa(pos.Line)+" ("+in+"): "+w.name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range bad {
		t.Errorf("%s writes JSON with its own encoder; write it with security/gate.Marshal, the exits' one encoder", b)
	}
	for k := range otherEncoders {
		if !found[k] {
			t.Errorf("otherEncoders names %q, which writes no JSON now: remove it", k)
		}
	}
	if len(found) < 5 {
		t.Fatalf("found %d of the encoders otherEncoders names; the walk missed the module's", len(found))
	}
}

type writer struct {
	pos  token.Pos
	name string // the package's path and the writer's name
	fn   string // the function it is in, "" at the top level
}

// writersIn returns each use of a JSON writer in f, by what f imports.
func writersIn(f *ast.File) []writer {
	local := map[string]string{} // the name f gives a package -> its path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if _, ok := jsonWriters[p]; !ok {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		local[name] = p
	}
	var out []writer
	for _, d := range f.Decls {
		fn := ""
		if fd, ok := d.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
		}
		ast.Inspect(d, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if p, ok := local[x.Name]; ok && slices.Contains(jsonWriters[p], sel.Sel.Name) {
				out = append(out, writer{sel.Pos(), p + "." + sel.Sel.Name, fn})
			}
			return true
		})
	}
	return out
}
