package threatmodel

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	sectionRE = regexp.MustCompile(`(?m)^### (T\d+) `)
	testRE    = regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`")
	funcRE    = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
)

func TestEveryThreatNamesExistingTests(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "THREAT_MODEL.md"))
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	err = walkGo(root, func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range funcRE.FindAllSubmatch(b, -1) {
				defined[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	idx := sectionRE.FindAllStringSubmatchIndex(text, -1)
	if len(idx) < 10 {
		t.Fatalf("THREAT_MODEL.md has %d threat sections, want the full list", len(idx))
	}
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		id, body := text[m[2]:m[3]], text[m[0]:end]
		if !strings.Contains(body, "**Control.**") {
			t.Errorf("%s names no control", id)
		}
		names := testRE.FindAllStringSubmatch(body, -1)
		if len(names) == 0 {
			t.Errorf("%s names no test", id)
		}
		for _, n := range names {
			if !defined[n[1]] {
				t.Errorf("%s cites %s, which no _test.go file defines", id, n[1])
			}
		}
	}
}
