package files

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// readRaceTries and saveRaceTries bound the calls each race test makes
// while the swapper runs. The code before the race-free walk (a check on
// one resolution of the path, an open on another) lost in every run, on a
// 2-core machine within 3300 reads and 1900 saves; a save costs 20 times a
// read.
const (
	readRaceTries = 20000
	saveRaceTries = 8000
)

// swapper runs flip in a loop on another goroutine, as another user
// flipping an entry of a folder it owns would, until the test ends.
func swapper(t *testing.T, flip func()) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				flip()
			}
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
}

// noSync makes saves skip fsync, which is not what the race tests test and
// would make each try a disk flush.
func noSync(t *testing.T) {
	t.Cleanup(func() { syncFile = (*os.File).Sync })
	syncFile = func(*os.File) error { return nil }
}

// TestReadRaceWithSwappedLink: an entry flipped between a decoy file and
// a symlink to a file in a hidden folder never sends the hidden file,
// however the flips fall between Read's steps (THREAT_MODEL T16).
func TestReadRaceWithSwappedLink(t *testing.T) {
	home := tempDir(t)
	secretPath := filepath.Join(home, ".ssh", "key.json")
	write(t, secretPath, []byte(`{"secret":"`+secret+`"}`))
	theirs := filepath.Join(home, "shared")
	entry := filepath.Join(theirs, "design.json")
	write(t, entry, []byte(`{"decoy":true}`))
	if err := os.Symlink(secretPath, filepath.Join(theirs, "probe")); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
	os.Remove(filepath.Join(theirs, "probe"))
	link, decoy, orig := filepath.Join(theirs, "l"), filepath.Join(theirs, "d"), filepath.Join(theirs, "orig")
	if err := os.Link(entry, orig); err != nil {
		t.Skipf("cannot make hard links here: %v", err)
	}
	if err := os.Symlink(secretPath, link); err != nil {
		t.Fatal(err)
	}
	if exchange(link, entry) == nil {
		swapper(t, func() { exchange(link, entry) })
	} else {
		swapper(t, func() {
			os.Symlink(secretPath, link)
			os.Rename(link, entry)
			os.Link(orig, decoy)
			os.Rename(decoy, entry)
		})
	}
	decoys := 0
	for i := range readRaceTries {
		in, err := Read(entry, Text)
		if strings.Contains(in.Value, secret) {
			t.Fatalf("Read(%q) on try %d sent the file in the hidden folder", entry, i+1)
		}
		if err == nil {
			decoys++
		}
	}
	t.Logf("%d of %d reads sent the decoy; the others were refused", decoys, readRaceTries)
}

// TestSaveRaceWithSwappedLink: a folder flipped between a real folder and
// a symlink to a hidden folder never has a file written into the hidden
// one, with overwrite or without.
func TestSaveRaceWithSwappedLink(t *testing.T) {
	home := tempDir(t)
	hiddenDir := filepath.Join(home, ".claude")
	if err := os.Mkdir(hiddenDir, 0o700); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(home, "shared")
	out, aside := filepath.Join(theirs, "out"), filepath.Join(theirs, "aside")
	if err := os.MkdirAll(aside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hiddenDir, out); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
	noSync(t)
	if exchange(aside, out) == nil {
		swapper(t, func() { exchange(aside, out) })
	} else {
		swapper(t, func() {
			os.Remove(out) // the link
			os.Rename(aside, out)
			os.Rename(out, aside)
			os.Symlink(hiddenDir, out)
		})
	}
	saved := 0
	for i := range saveRaceTries {
		if _, _, err := save(out, "settings.json", content{data: []byte(`{"hooks":{}}`)}, i%2 == 0); err == nil {
			saved++
		}
		if ents, _ := os.ReadDir(hiddenDir); len(ents) > 0 {
			t.Fatalf("Save(%q) on try %d wrote %s into the hidden folder", out, i+1, ents[0].Name())
		}
	}
	t.Logf("%d of %d saves written to the real folder; the others were refused", saved, saveRaceTries)
}
