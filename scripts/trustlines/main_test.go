package main

import (
	"os"
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
	n, err := codeLines(f)
	if err != nil || n != 4 {
		t.Errorf("codeLines = %d, %v; want 4 (package, the raw string's two lines, func)", n, err)
	}
}
