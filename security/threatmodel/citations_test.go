package threatmodel

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The spec the code cites is docs/protocol.md: every "§N" or "§N.N" in the
// repository names one of its headings, and nothing cites the notes it was
// once written from, which are not in the repository.

// protocolDoc is the document every § cites.
const protocolDoc = "docs/protocol.md"

// headingRE is a numbered heading of protocolDoc: "## 2. The page side",
// "### 2.6 A second tab".
var headingRE = regexp.MustCompile(`(?m)^#{2,4} ([0-9]+(?:\.[0-9]+)*)\.? `)

// citationRE is a section cited anywhere: "§2.6", "§ 4.2-4.3", "§3.5.".
var citationRE = regexp.MustCompile(`§\s*([0-9]+(?:\.[0-9]+)*)(?:\s*[-–]\s*([0-9]+(?:\.[0-9]+)*))?`)

// rfcBefore is what precedes a § of another document: "RFC 6455 §5.2".
var rfcBefore = regexp.MustCompile(`RFC ?[0-9]+,? ?$`)

// goneNotes is the file name of the notes that are not in the repository,
// built so that this file does not cite it.
var goneNotes = "reference-bridge-" + "notes"

// citedFiles are the kinds of file that cite the protocol.
var citedFiles = []string{".go", ".md", ".txtar", ".txt", ".yaml", ".yml", ".sh", ".html", ".js", ".css"}

// citationProblems returns what is wrong with the citations in text:
// sections that are not in headings, and any mention of the gone notes.
func citationProblems(text string, headings map[string]bool) []string {
	var problems []string
	for _, ix := range citationRE.FindAllStringSubmatchIndex(text, -1) {
		if rfcBefore.MatchString(text[max(0, ix[0]-16):ix[0]]) {
			continue // a section of an RFC, not of the protocol
		}
		m := []string{""}
		for i := 2; i < len(ix); i += 2 {
			if ix[i] < 0 {
				m = append(m, "")
			} else {
				m = append(m, text[ix[i]:ix[i+1]])
			}
		}
		for _, n := range m[1:] {
			if n != "" && !headings[n] {
				problems = append(problems, "cites §"+n+", which is no heading of "+protocolDoc)
			}
		}
	}
	if strings.Contains(text, goneNotes) {
		problems = append(problems, "cites "+goneNotes+".md, which is not in the repository; cite a section of "+protocolDoc)
	}
	return problems
}

// protocolHeadings are the section numbers of protocolDoc's headings.
func protocolHeadings(t *testing.T, root string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, protocolDoc))
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(string(b), -1) {
		headings[m[1]] = true
	}
	return headings
}

// TestCitationsResolve: every file that cites a section of the protocol
// cites one that docs/protocol.md has, and none cites the notes.
func TestCitationsResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	headings := protocolHeadings(t, root)
	// The published spec's sections, which the code has always cited.
	for _, n := range []string{"0", "1", "2", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9",
		"3", "3.1", "3.2", "3.3", "3.4", "3.5", "4", "4.1", "4.2", "4.3", "4.4", "5", "6", "7"} {
		if !headings[n] {
			t.Errorf("%s has no heading for §%s", protocolDoc, n)
		}
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		keep := false
		for _, e := range citedFiles {
			keep = keep || ext == e
		}
		if !keep {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, p := range citationProblems(string(b), headings) {
			t.Errorf("%s %s", filepath.ToSlash(rel), p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files under %s, want the whole repository", files, root)
	}
}

// TestCitationProblems: the checker catches what it is for.
func TestCitationProblems(t *testing.T) {
	headings := map[string]bool{"2": true, "2.6": true, "4.2": true, "4.3": true, "7.13": true}
	tests := []struct {
		text string
		want int
	}{
		{"// protocol.md §2.6: busy", 0},
		{"(protocol.md\n// §4.2-4.3)", 0},
		{"§2, §7.13.", 0},
		{"protocol.md §" + "2.10", 1},
		{"§4.2-" + "4.4", 1},
		{"(" + goneNotes + ".md, voice)", 1},
		{"§ " + "8", 1},
		{"(RFC 6455 §" + "5.2: a client masks)", 0},
	}
	for _, tt := range tests {
		if got := citationProblems(tt.text, headings); len(got) != tt.want {
			t.Errorf("citationProblems(%q) = %q, want %d problems", tt.text, got, tt.want)
		}
	}
}
