package files

import (
	"strings"
	"testing"
)

// TestPrepareProvesFolderTakesFile: a folder that exists but takes no new
// file (/proc/self, /sys/kernel, even for root) is refused before the call
// by Prepare and CheckOut, not found out when the reply is written; a
// folder that takes one is left as it was.
func TestPrepareProvesFolderTakesFile(t *testing.T) {
	const want = "a file cannot be created there"
	for _, dir := range []string{"/proc/self", "/sys/kernel"} {
		if err := Prepare(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Prepare(%q) = %v, want an error saying %q", dir, err, want)
		}
		if err := CheckOut(dir+"/x.png", true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckOut(%q) = %v, want an error saying %q", dir+"/x.png", err, want)
		}
	}
	dir := tempDir(t)
	if err := Prepare(dir); err != nil {
		t.Errorf("Prepare(%q) = %v, want nil", dir, err)
	}
	if err := CheckOut(dir+"/x.png", false); err != nil {
		t.Errorf("CheckOut(%q) = %v, want nil", dir+"/x.png", err)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("Prepare and CheckOut left %q in the folder, want nothing", got)
	}
}
