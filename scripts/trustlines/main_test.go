package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestReviewingDocIsCurrent: docs/reviewing.md quotes the table this
// command prints today, so its figures are measured, not typed.
func TestReviewingDocIsCurrent(t *testing.T) {
	t.Chdir("../..")
	table, err := render()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("docs/reviewing.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), marked(table)) {
		t.Errorf("docs/reviewing.md does not hold the current table; run go run ./scripts/trustlines -write docs/reviewing.md:\n%s", marked(table))
	}
}

func TestCodeLines(t *testing.T) {
	f := t.TempDir() + "/x.go"
	src := "// Package x.\npackage x\n\n/* a\nblock */\nvar s = `one\ntwo`\n\nfunc f() {} // trailing\n"
	os.WriteFile(f, []byte(src), 0o600)
	n, c, err := codeLines(f)
	if err != nil || n != 4 || c != 3 {
		t.Errorf("codeLines = %d, %d, %v; want 4 code lines (package, the raw string's two lines, func) and 3 comment lines (the package comment, the block's two)", n, c, err)
	}
}

// A file counts in a system's column only when that system's binary holds
// it: by its name or by its build constraint.
func TestTargets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/a_windows.go", []byte("package x\n"), 0o600)
	os.WriteFile(dir+"/b.go", []byte("//go:build !windows\n\npackage x\n"), 0o600)
	os.WriteFile(dir+"/c.go", []byte("package x\n"), 0o600)
	for i, want := range [][3]bool{{false, true, true}, {false, true, true}, {true, false, true}} { // linux, darwin, windows
		for j, name := range []string{"a_windows.go", "b.go", "c.go"} {
			if ok, err := targets[i].MatchFile(dir, name); err != nil || ok != want[j] {
				t.Errorf("%s binary holds %s: %v, %v; want %v", targets[i].GOOS, name, ok, err, want[j])
			}
		}
	}
}

// TestEveryJSONTextUserIsCounted: a package that imports jsontext, the
// lexer of untrusted JSON, handles a page's or a leader's bytes, so it is a
// carrier or an exit and counted whole, or named in perFile.
func TestEveryJSONTextUserIsCounted(t *testing.T) {
	t.Chdir("../..")
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	known := map[string]bool{}
	for _, p := range slices.Concat(carriers, exits, perFile) {
		known[module+"/"+p] = true
	}
	const jsontext = "github.com/go-json-experiment/json/jsontext"
	users := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if !slices.Contains(strings.Fields(imports), jsontext) {
			continue
		}
		users++
		if !known[pkg] && !strings.HasPrefix(pkg, module+"/security/") && !strings.HasPrefix(pkg, module+"/scripts/") {
			t.Errorf("%s reads untrusted JSON (imports jsontext) but is neither a carrier, an exit nor counted per file", pkg)
		}
	}
	if users == 0 {
		t.Fatal("no package imports jsontext; the check proves nothing")
	}
}

// TestJSONReadersAreCounted: the narrower figure is a part of the whole
// one, and finds the places a page's frame is read.
func TestJSONReadersAreCounted(t *testing.T) {
	t.Chdir("../..")
	counted, readers, err := countedFiles(programs[0][1])
	if err != nil {
		t.Fatal(err)
	}
	for f := range readers {
		if !counted[f] {
			t.Errorf("%s reads a page's JSON but is not counted", f)
		}
	}
	for _, f := range []string{"internal/page/page.go", "internal/envelope/reply.go", "internal/bridge/follow.go", "internal/cli/verbs.go"} {
		if !readers[f] {
			t.Errorf("%s reads a page's or a leader's JSON, but is not among the readers", f)
		}
	}
}
