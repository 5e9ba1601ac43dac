package attempts

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// SwitchName is what the Stitch Slop panel calls the switch that lets its
// tab dial a bridge, as the page's own protocol (protocol.md §3.2's
// instructions) words it.
const SwitchName = "Allow agent connections"

// The switch has one name wherever the bridge, its demo and its documents
// name it (issue 36 item 6: two names for it sent a newcomer looking for a
// second switch).
func TestTheSwitchHasOneName(t *testing.T) {
	root := filepath.Join("..", "..")
	anyName := regexp.MustCompile(`(?i)\b\w+ agent connections\b`)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return fs.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".html", ".js", ".txt":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		for _, m := range anyName.FindAllString(string(b), -1) {
			if m != SwitchName {
				t.Errorf("%s names the switch %q, want %q", p, m, SwitchName)
			}
		}
		return nil
	})
}
