package threatmodel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// refRE is a backticked reference to Go code: an optional module-relative
// directory, then a package, type or identifier, then one or two names:
// `security/origin.CheckUpgrade`, `origin.Parse`, `hub.Hub.Reserve`,
// `front.ServeHTTP`.
var refRE = regexp.MustCompile("`((?:[a-z0-9_-]+/)*[A-Za-z][A-Za-z0-9_-]*)\\.([A-Za-z_][A-Za-z0-9_]*)(?:\\.([A-Za-z_][A-Za-z0-9_]*))?`")

// fileName is the tail of a file name (pairing.json, pairing.json.lock),
// which shares its first part with a package name.
var fileName = regexp.MustCompile(`^(json|jsonl|lock|md|go|ya?ml|txt|toml|sh|mjs|js|exe|png|svg|dst|zip|tar|gz|html|txtar|ps1|mcpb|sig|pem|bat|plist|sum|mod|c|py|bash|fish)(\.|$)`)

// decls is every identifier the module declares outside tests, by package
// directory (module-relative) and by package name: top-level names, and
// Type.Method and Type.Field.
type decls struct {
	byDir  map[string]map[string]bool
	byName map[string][]string // package name -> directories
	tests  map[string]bool     // dir + "." + Test or Fuzz function
}

// walkGo calls f with the path of every .go file under root, tests
// included, outside .git and testdata.
func walkGo(root string, f func(path string) error) error {
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case e.IsDir() && (e.Name() == ".git" || e.Name() == "testdata"):
			return filepath.SkipDir
		case e.IsDir() || !strings.HasSuffix(path, ".go"):
			return nil
		}
		return f(path)
	})
}

func loadDecls(t *testing.T, root string) decls {
	t.Helper()
	d := decls{byDir: map[string]map[string]bool{}, byName: map[string][]string{}, tests: map[string]bool{}}
	fset := token.NewFileSet()
	err := walkGo(root, func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			for _, m := range funcRE.FindAllSubmatch(b, -1) {
				d.tests[filepath.ToSlash(dir)+"."+string(m[1])] = true
			}
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		names := d.byDir[dir]
		if names == nil {
			names = map[string]bool{}
			d.byDir[dir] = names
			d.byName[f.Name.Name] = append(d.byName[f.Name.Name], dir)
			d.byName[filepath.Base(dir)] = append(d.byName[filepath.Base(dir)], dir)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					names[decl.Name.Name] = true
				} else {
					names[recvType(decl.Recv.List[0].Type)+"."+decl.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							names[n.Name] = true
						}
					case *ast.TypeSpec:
						names[spec.Name.Name] = true
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									names[spec.Name.Name+"."+n.Name] = true
								}
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// resolve reports whether a reference names something declared. ok is
// false when its first part names no package, directory or type at all: a
// reference to something else (a file, a flag), which is not checked.
func (d decls) resolve(pkg, name, sub string) (found, ok bool) {
	var dirs []string
	if strings.Contains(pkg, "/") {
		if d.byDir[pkg] == nil {
			return false, true // a directory that holds no Go code
		}
		dirs = []string{pkg}
	} else {
		dirs = d.byName[pkg]
	}
	want := name
	if sub != "" {
		want = name + "." + sub
	}
	if len(dirs) > 0 {
		if fileName.MatchString(want) {
			return false, false // pairing.json, not package pairing
		}
		for _, dir := range dirs {
			if d.byDir[dir][want] {
				return true, true
			}
			// pkg.Method, for a method of one of the package's types.
			for k := range d.byDir[dir] {
				if sub == "" && strings.HasSuffix(k, "."+want) {
					return true, true
				}
			}
		}
		return false, true
	}
	// Type.Method or Type.Field without a package: any package may have it.
	if sub == "" && pkg != "" && pkg[0] >= 'A' && pkg[0] <= 'Z' || pkg != "" && isLowerType(d, pkg) {
		for _, names := range d.byDir {
			if names[pkg+"."+name] {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

// isLowerType reports whether some package declares an unexported type
// named name (front, conn), so front.ServeHTTP is checked as a method.
func isLowerType(d decls, name string) bool {
	for _, names := range d.byDir {
		for k := range names {
			if strings.HasPrefix(k, name+".") {
				return true
			}
		}
	}
	return false
}

// TestControlsNameExistingCode: every threat's control names the Go code
// that implements it, and every Go identifier THREAT_MODEL.md names exists,
// so a control that is renamed, removed or never written cannot stay
// described as present.
func TestControlsNameExistingCode(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "THREAT_MODEL.md"))
	if err != nil {
		t.Fatal(err)
	}
	d := loadDecls(t, root)
	text := string(doc)

	idx := sectionRE.FindAllStringSubmatchIndex(text, -1)
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		id, body := text[m[2]:m[3]], text[m[0]:end]
		control := body[strings.Index(body, "**Control.**"):]
		if j := strings.Index(control, "\n- **"); j > 0 {
			control = control[:j]
		}
		named := 0
		for _, r := range refRE.FindAllStringSubmatch(control, -1) {
			if found, ok := d.resolve(r[1], r[2], r[3]); ok && found {
				named++
			}
		}
		if named == 0 && !strings.Contains(control, "*Planned, not built") {
			t.Errorf("%s: its control names no Go identifier that exists", id)
		}
	}
	for _, r := range refRE.FindAllStringSubmatch(text, -1) {
		if found, ok := d.resolve(r[1], r[2], r[3]); ok && !found {
			t.Errorf("THREAT_MODEL.md names %s, which the code does not declare", strings.Trim(r[0], "`"))
		}
	}
	// The controls index: | `dir` | `Name`, `Type.Method`, … | threats |
	for _, row := range indexRowRE.FindAllStringSubmatch(text, -1) {
		dir, names := row[1], row[2]
		if d.byDir[dir] == nil {
			t.Errorf("the controls index names package %s, which holds no Go code", dir)
			continue
		}
		for _, n := range nameRE.FindAllStringSubmatch(names, -1) {
			if !d.byDir[dir][n[1]] && !d.tests[dir+"."+n[1]] {
				t.Errorf("the controls index names %s.%s, which the code does not declare", dir, n[1])
			}
		}
	}
}

// indexRowRE is a row of the controls index; nameRE a backticked Go name
// in its second column.
var (
	indexRowRE = regexp.MustCompile("(?m)^\\| `((?:security|internal|cmd)/[a-z0-9/_-]+)` \\| ([^|]*) \\|")
	nameRE     = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?)`")
)

// commentRefRE is a reference to Go code in running text, without
// backticks: a package of this module (by name or module-relative
// directory), then one or two names: files.Save, internal/mcp.resultHead,
// hub.Hub.Reserve. Only references whose first part names a package of the
// module are checked, so json.Valid or e.g. pass unread.
var commentRefRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:[a-z0-9_-]+/)*[a-z][a-z0-9]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?`)

// TestDocumentsAndCommentsNameExistingCode: every pkg.Name that a document
// (README.md, SECURITY.md, THREAT_MODEL.md, docs/*.md) or a comment in the
// module's Go code names, for a package of this module, is declared, so a
// renamed or removed function cannot stay cited as the place a thing
// happens.
func TestDocumentsAndCommentsNameExistingCode(t *testing.T) {
	root := filepath.Join("..", "..")
	d := loadDecls(t, root)
	// dirsOf are the directories a reference's package part names.
	dirsOf := func(pkg string) []string {
		if strings.Contains(pkg, "/") {
			return []string{pkg}
		}
		return d.byName[pkg]
	}
	// test reports whether pkg.name is a Test or Fuzz function there.
	test := func(pkg, name string) bool {
		for _, dir := range dirsOf(pkg) {
			if d.tests[dir+"."+name] {
				return true
			}
		}
		return false
	}
	// variable reports whether name is declared in pkg with no method or
	// field recorded under it: a variable, whose type is not looked up, so
	// pkg.Var.Field is taken on trust.
	variable := func(pkg, name string) bool {
		for _, dir := range dirsOf(pkg) {
			if !d.byDir[dir][name] {
				continue
			}
			for k := range d.byDir[dir] {
				if strings.HasPrefix(k, name+".") {
					return false
				}
			}
			return true
		}
		return false
	}
	check := func(where, text string, re *regexp.Regexp, local map[string]bool) {
		for _, r := range re.FindAllStringSubmatch(text, -1) {
			pkg := r[1]
			switch {
			case local[pkg], fileName.MatchString(r[2]), fileName.MatchString(r[3]):
				continue // a name of the file's own or another module's; a file
			case strings.Contains(pkg, "/") && d.byDir[pkg] == nil:
				continue // a path to a file or folder, not a package
			case re == commentRefRE && d.byName[pkg] == nil && !strings.Contains(pkg, "/"):
				continue
			case r[3] == "" && test(pkg, r[2]), r[3] != "" && variable(pkg, r[2]):
				continue // a test; pkg.Var.Field
			}
			if found, ok := d.resolve(r[1], r[2], r[3]); ok && !found {
				ref := r[1] + "." + r[2]
				if r[3] != "" {
					ref += "." + r[3]
				}
				t.Errorf("%s names %s, which the code does not declare", where, ref)
			}
		}
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "SECURITY.md"), filepath.Join(root, "THREAT_MODEL.md"))
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		check(filepath.ToSlash(rel), string(b), refRE, nil)
	}
	fset := token.NewFileSet()
	err := walkGo(root, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		// Names that are not this module's packages here: those of other
		// modules the file imports (the MCP SDK's mcp), and the file's own
		// package's identifiers (gate's limits variable).
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		local := map[string]bool{}
		for k := range d.byDir[filepath.ToSlash(dir)] {
			local[k] = true
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, "github.com/stitchslop/stitchslop-bridge/") {
				continue
			}
			name := filepath.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			local[name] = true
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				check(filepath.ToSlash(rel)+":"+strconv.Itoa(fset.Position(c.Pos()).Line), c.Text, commentRefRE, local)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
