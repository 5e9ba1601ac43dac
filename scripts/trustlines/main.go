// Command trustlines counts the code lines of the bridge's release binary
// that sit at a trust boundary, layer by layer, in the order data crosses
// them: the figures docs/reviewing.md quotes, so that they are measured,
// not typed; under the total, the part of them in the files that read a
// page's or a leader's JSON (door); and, for each of the module's two
// programs, the code lines of every package of this module it links and
// those of them at a trust boundary by the same rule, and the share of
// comment lines among the non-blank lines it links (programs).
//
//	go run ./scripts/trustlines            # a Markdown table
//	go run ./scripts/trustlines -check docs/reviewing.md
//	go run ./scripts/trustlines -write docs/reviewing.md   # after a change
//
// (go test ./scripts/trustlines runs the check.) A code line is a line
// that holds a Go token: blank lines and lines that hold only comments do
// not count; a comment line holds a comment and no token. Test files do not
// count. -check fails when the table in the file is not the one this
// command prints.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// module is the import path of this module.
const module = "github.com/stitchslop/stitchslop-bridge"

// carriers are the packages whose values hold bytes a page or a leader
// bridge sent, or decide what becomes of them: the page socket and the hub
// that delivers its frames, the control plane and the client that reads a
// leader's answers, the lexer of untrusted JSON, the gate to the model, the
// writer to the disk, and the code between them. The rule: a file of the
// release binary counts when it is in security/, in a carrier or an exit
// (below), or imports a carrier. TestEveryJSONTextUserIsCounted keeps the
// list from falling behind the lexer: a package that reads untrusted JSON
// is a carrier or an exit.
var carriers = []string{
	"internal/page", "internal/hub", "internal/control", "internal/client",
	"internal/envelope", "internal/replyfiles", "internal/attempts",
	"security/gate", "security/files", "security/toollist",
	"internal/speech",
}

// exits count whole, though importing one does not make a file count: the
// MCP face writes stdout from every file, the bridge wires the faces to the
// hub, ui prints page strings to the terminal (a file that imports it only
// logs its own words), and the demo (stitchslop's) serves the page that
// dials the bridge.
var exits = []string{"internal/mcp", "internal/bridge", "internal/ui", "internal/demo"}

// perFile are the packages that read untrusted JSON but are counted file by
// file, by the rule: the shell's verbs, whose help never sees a page's
// bytes, and stitchslop's, whose completions and manual pages do not.
var perFile = []string{"internal/cli", "internal/toolbox"}

// programs are the module's two binaries: the bridge, and stitchslop, the
// tools a person runs by hand, which nothing of the bridge links.
var programs = [][2]string{{"stitchslop-bridge", "./cmd/stitchslop-bridge"}, {"stitchslop", "./cmd/stitchslop"}}

// layer is one boundary and the code that makes it, by path from the
// module root: a directory stands for its non-test .go files. The layer
// marked rest also takes every file the rule counts that no layer names,
// so a hand list can leave nothing out.
type layer struct {
	name  string
	paths []string
	rest  bool
}

// layers are the boundaries in the order docs/reviewing.md walks them, the
// order a page's bytes cross them. They can add to what is counted, never
// take away.
var layers = []layer{
	{"1. page socket and handshake", []string{"internal/page", "security/origin", "security/credential", "security/ledger", "security/throttle", "security/limits", "internal/pairing", "internal/sites", "internal/attempts"}, false},
	{"2. the door", []string{"internal/envelope"}, false},
	{"3. the hub", []string{"internal/hub"}, false},
	{"4. the gate and the tool list", []string{"security/gate", "security/unprintable", "security/toollist", "internal/speech"}, false},
	{"5. the faces: MCP, the control plane and its client, stderr, and every other file that imports a carrier", []string{"internal/mcp", "internal/control", "internal/client", "internal/ui", "security/envtoken"}, true},
	{"6. files", []string{"security/files", "security/fileperm", "internal/session", "internal/replyfiles", "internal/cli/files.go", "internal/cli/stream.go"}, false},
	{"7. other users", []string{"security/peercred", "internal/bridge/open.go", "internal/bridge/peer.go"}, false},
}

func main() {
	check := flag.String("check", "", "fail unless `FILE` holds the table this command prints")
	write := flag.String("write", "", "put the table into `FILE`, between its trustlines markers")
	flag.Parse()
	table, err := render()
	if err != nil {
		fmt.Fprintln(os.Stderr, "trustlines:", err)
		os.Exit(1)
	}
	if *write != "" {
		if err := replaceMarked(*write, marked(table)); err != nil {
			fmt.Fprintln(os.Stderr, "trustlines:", err)
			os.Exit(1)
		}
		return
	}
	if *check == "" {
		os.Stdout.WriteString(marked(table))
		return
	}
	doc, err := os.ReadFile(*check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trustlines:", err)
		os.Exit(1)
	}
	if !bytes.Contains(doc, []byte(marked(table))) {
		fmt.Fprintf(os.Stderr, "trustlines: %s does not hold the current table; replace it with the output of go run ./scripts/trustlines:\n%s", *check, table)
		os.Exit(1)
	}
}

// marked is the table between the markers that hold it in
// docs/reviewing.md.
func marked(table string) string {
	return "<!-- trustlines -->\n" + table + "<!-- /trustlines -->\n"
}

// replaceMarked puts table, markers included, in place of the marked table
// in file.
func replaceMarked(file, table string) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	const open, close = "<!-- trustlines -->\n", "<!-- /trustlines -->\n"
	a := bytes.Index(doc, []byte(open))
	b := bytes.Index(doc, []byte(close))
	if a < 0 || b < a {
		return fmt.Errorf("%s has no %q and %q lines to put the table between", file, open[:len(open)-1], close[:len(close)-1])
	}
	out := append(append(append([]byte{}, doc[:a]...), table...), doc[b+len(close):]...)
	return os.WriteFile(file, out, 0o644)
}

// render measures every layer and returns the table: every file a layer
// names, and in a last row every other file the rule counts (countedFiles).
func render() (string, error) {
	counted, jsonReaders, err := countedFiles(programs[0][1])
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| layer | code lines | in the linux binary | darwin | windows | files |\n|---|---:|---:|---:|---:|---|\n")
	total := make([]int, 1+len(targets))
	measure := func(files []string) ([]int, error) {
		n := make([]int, 1+len(targets))
		for _, f := range files {
			c, _, err := codeLines(f)
			if err != nil {
				return nil, err
			}
			some := false
			for i, ctx := range targets {
				if ok, err := ctx.MatchFile(filepath.Dir(f), filepath.Base(f)); err != nil {
					return nil, err
				} else if ok {
					n[1+i] += c
					some = true
				}
			}
			if some { // a file only a test build holds is no release's
				n[0] += c
			}
		}
		return n, nil
	}
	row := func(name string, files []string, label string) error {
		n, err := measure(files)
		if err != nil {
			return err
		}
		for i := range n {
			total[i] += n[i]
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", name, n[0], n[1], n[2], n[3], label)
		return nil
	}
	// A layer's own files count whether or not the rule finds them
	// (pairing and sites hold credentials, not page bytes).
	own := make([][]string, len(layers))
	for i, l := range layers {
		if own[i], err = goFiles(l.paths); err != nil {
			return "", err
		}
		for _, f := range own[i] {
			delete(counted, f)
		}
	}
	rest := make([]string, 0, len(counted))
	for f := range counted {
		rest = append(rest, f)
	}
	sort.Strings(rest)
	for i, l := range layers {
		files, label := own[i], "`"+strings.Join(l.paths, "`, `")+"`"
		if l.rest {
			files = append(files, rest...)
			label += "; " + "`" + strings.Join(rest, "`, `") + "`"
		}
		if err := row(l.name, files, label); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(&b, "| **all trust-boundary code** | **%d** | **%d** | **%d** | **%d** | |\n", total[0], total[1], total[2], total[3])
	readers := make([]string, 0, len(jsonReaders))
	for f := range jsonReaders {
		readers = append(readers, f)
	}
	sort.Strings(readers)
	n, err := measure(readers)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "| of which, the files that read a page's or a leader's JSON: the door and its readers, and every file that imports either | %d | %d | %d | %d | `%s`, `%s` and their importers |\n",
		n[0], n[1], n[2], n[3], door[0], door[1])
	b.WriteString("\n| program | code lines in the linux binary (every package of this module it links) | of which at a trust boundary, by the same rule | comment lines, as a share of the non-blank lines of the same files |\n|---|---:|---:|---:|\n")
	for _, p := range programs {
		all, trust, comments, err := programLines(p[1])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d (%s) |\n", p[0], all, trust, comments, share(comments, all+comments))
	}
	return b.String(), nil
}

// share is part of whole as a percentage with one decimal.
func share(part, whole int) string {
	if whole == 0 {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// programLines measures the linux binary of the program cmd builds: the
// code lines of every non-test file of this module's packages it links,
// those of the files at a trust boundary (the rule, and the layers' files
// it links), and the comment lines of all of them.
func programLines(cmd string) (all, trust, comments int, err error) {
	linux := targets[0]
	files, err := linkedFiles(cmd, linux)
	if err != nil {
		return 0, 0, 0, err
	}
	counted, _, err := countedFiles(cmd)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, l := range layers {
		fs, err := goFiles(l.paths)
		if err != nil {
			return 0, 0, 0, err
		}
		for _, f := range fs {
			counted[f] = true
		}
	}
	for _, f := range files {
		if ok, err := linux.MatchFile(filepath.Dir(f), filepath.Base(f)); err != nil {
			return 0, 0, 0, err
		} else if !ok {
			continue
		}
		n, c, err := codeLines(f)
		if err != nil {
			return 0, 0, 0, err
		}
		all += n
		comments += c
		if counted[f] {
			trust += n
		}
	}
	return all, trust, comments, nil
}

// linkedFiles lists the non-test files, by path from the module root, of
// this module's packages that the program cmd builds links for ctx.
func linkedFiles(cmd string, ctx build.Context) ([]string, error) {
	c := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", cmd)
	c.Env = append(os.Environ(), "GOOS="+ctx.GOOS, "GOARCH="+ctx.GOARCH, "CGO_ENABLED=0")
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s for %s: %w", cmd, ctx.GOOS, err)
	}
	var files []string
	for _, path := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(path, module+"/"); ok {
			fs, err := goFiles([]string{rel})
			if err != nil {
				return nil, err
			}
			files = append(files, fs...)
		}
	}
	return files, nil
}

// door is the package that reads every answer a tab or a leader sends
// where it enters, and the package of the readers of what it passed (over
// jsontext, the standard's lexer): a file that imports either can hold a
// page's JSON.
var door = []string{"internal/envelope", "security/gate"}

// countedFiles applies the rule (carriers) to every non-test file of this
// module's packages in the release binary cmd builds, on any of its systems,
// by path from the module root; and the narrower rule (door) too, for the
// files that read a page's or a leader's JSON.
func countedFiles(cmd string) (counted, jsonReaders map[string]bool, err error) {
	counted, jsonReaders = map[string]bool{}, map[string]bool{}
	carrier, exit, isDoor := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range door {
		isDoor[module+"/"+d] = true
	}
	for _, c := range carriers {
		carrier[module+"/"+c] = true
	}
	for _, e := range exits {
		exit[module+"/"+e] = true
	}
	seen := map[string]bool{}
	for _, ctx := range targets {
		c := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Dir}}", cmd)
		c.Env = append(os.Environ(), "GOOS="+ctx.GOOS, "GOARCH="+ctx.GOARCH, "CGO_ENABLED=0")
		out, err := c.Output()
		if err != nil {
			return nil, nil, fmt.Errorf("go list for %s: %w", ctx.GOOS, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			path, _, _ := strings.Cut(line, " ")
			rel, ok := strings.CutPrefix(path, module+"/")
			if !ok || seen[rel] {
				continue
			}
			seen[rel] = true
			files, err := goFiles([]string{rel})
			if err != nil {
				return nil, nil, err
			}
			whole := carrier[path] || exit[path] || strings.HasPrefix(rel, "security/")
			for _, f := range files {
				imports, err := importsOf(f)
				if err != nil {
					return nil, nil, err
				}
				counted[f] = counted[f] || whole
				jsonReaders[f] = jsonReaders[f] || isDoor[path]
				for _, im := range imports {
					counted[f] = counted[f] || carrier[im]
					jsonReaders[f] = jsonReaders[f] || isDoor[im]
				}
				if !counted[f] {
					delete(counted, f)
				}
				if !jsonReaders[f] {
					delete(jsonReaders, f)
				}
			}
		}
	}
	return counted, jsonReaders, nil
}

// importsOf lists the import paths of a Go file.
func importsOf(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		out = append(out, p)
	}
	return out, nil
}

// targets are the systems a release binary is built for: a file counts in
// a system's column when its name and build constraints put it in that
// binary. The first column counts every file, whatever its system.
var targets = func() []build.Context {
	var out []build.Context
	for _, goos := range []string{"linux", "darwin", "windows"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = goos, "amd64", false
		out = append(out, ctx)
	}
	return out
}()

// goFiles lists the non-test .go files the paths name.
func goFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("layer path %s: %w (run from the module root)", p, err)
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(p, "*.go"))
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// codeLines counts the lines of a Go file that hold a token (code), and
// those that hold a comment and no token (comments).
func codeLines(path string) (code, comments int, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	var bad error
	s.Init(file, src, func(pos token.Position, msg string) { bad = fmt.Errorf("%s: %s", pos, msg) }, scanner.ScanComments)
	lines, commented := map[int]bool{}, map[int]bool{}
	for {
		pos, kind, lit := s.Scan()
		if kind == token.EOF {
			break
		}
		if kind == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end, not written
		}
		start := fset.Position(pos).Line
		seen := lines
		if kind == token.COMMENT {
			seen = commented
		}
		// A raw string or a block comment spans lines; each is counted.
		for i := 0; i <= strings.Count(lit, "\n"); i++ {
			seen[start+i] = true
		}
	}
	for l := range commented {
		if !lines[l] {
			comments++
		}
	}
	return len(lines), comments, bad
}
