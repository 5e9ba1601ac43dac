// Package session manages the control-plane session files,
// <config-dir>/session-<port>.json (protocol.md §4.1): written by a bridge
// when it binds, read by the shell verbs to find it.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
)

// File is the content of a session file.
type File struct {
	Port      int    `json:"port"`
	Key       string `json:"key"`
	Origin    string `json:"origin"`
	PID       int    `json:"pid"`
	Protocol  int    `json:"protocol"`
	StartedAt string `json:"startedAt"`
}

func Path(dir string, port int) string {
	return filepath.Join(dir, "session-"+strconv.Itoa(port)+".json")
}

// Timestamp formats t as the session file and pairing.json do.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// Write writes f atomically with mode 0600.
func Write(dir string, f File) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return fileperm.WriteFile(Path(dir, f.Port), append(b, '\n'))
}

// Read is the one reader of a session file: what fileperm.ReadFile refuses
// is refused, a loose mode silently repaired.
func Read(path string) (File, error) {
	var f File
	b, err := fileperm.ReadFile(path, nil)
	if err != nil {
		return f, err
	}
	if b == nil {
		return f, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	// The parser's own error is not quoted: its text can carry a piece of
	// the key.
	if json.Unmarshal(b, &f) != nil {
		return f, &InvalidError{Path: path, Why: "not valid JSON"}
	}
	if f.Port <= 0 || f.Port > 65535 || f.Key == "" || f.PID <= 0 {
		return f, &InvalidError{Path: path, Why: "port, key or pid missing"}
	}
	return f, nil
}

// InvalidError is a session file that was read but is not one: Why says
// what is wrong in the bridge's words, never quoting the file.
type InvalidError struct{ Path, Why string }

func (e *InvalidError) Error() string { return e.Path + " is not a valid session file: " + e.Why }

// RemoveIfOurs removes the session file for port unless another process has
// replaced it since: a second bridge's file must survive our exit.
func RemoveIfOurs(dir string, port, pid int) (removed bool, err error) {
	p := Path(dir, port)
	f, err := Read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil || f.PID != pid {
		return false, err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("removing %s: %w", p, err)
	}
	return true, nil
}

// Found is a session file seen by List.
type Found struct {
	Path string
	File File
}

// List returns the session files in dir whose process is alive, ordered by
// port, and deletes those whose pid is gone (a bridge killed with SIGKILL
// cannot clean up after itself). Files that do not parse are reported in
// bad and left alone.
func List(dir string) (live []Found, bad []error, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "session-*.json"))
	if err != nil {
		return nil, nil, err
	}
	for _, p := range paths {
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "session-"), ".json")
		if _, err := strconv.Atoi(base); err != nil {
			continue
		}
		f, err := Read(p)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if !Alive(f.PID) {
			os.Remove(p)
			continue
		}
		live = append(live, Found{Path: p, File: f})
	}
	sort.Slice(live, func(i, j int) bool { return live[i].File.Port < live[j].File.Port })
	return live, bad, nil
}
