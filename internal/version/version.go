// Package version holds the build identity (--version, serverInfo.version)
// and Identity, with the SHA-256 of the executable (docs/protocol.md §7.18).
// Release builds set Version, Commit and Date with -ldflags -X; a plain
// build falls back to debug.ReadBuildInfo.
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

const Protocol = 1

var (
	Version = ""
	Commit  = ""
	Date    = ""
)

func Short() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// LineOf is the one line version prints for the program named name:
// version, protocol, Go version and platform, and the commit when known.
func LineOf(name string) string {
	s := fmt.Sprintf("%s %s (wire protocol %d) %s %s/%s",
		name, Short(), Protocol, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if c := commit(); c != "" {
		s += " commit " + c
	}
	return s
}

func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

// Identity says which binary this is, with the SHA-256 of its executable
// file. It is information for the user, never a control: a binary that
// lies about itself can say anything here (docs/protocol.md §7.18).
type Identity struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	// SHA256 is the lower-case hex SHA-256 of the executable file, or ""
	// when it is not known; SHA256Error then says why, in words that name
	// no path (the page sees them).
	SHA256      string `json:"sha256,omitempty"`
	SHA256Error string `json:"sha256Error,omitempty"`
}

// HashWait bounds how long the hello waits for the hash; then it says NotYet.
const HashWait = 2 * time.Second

const NotYet = "still being computed"

// hasher computes a hash once, in the background.
type hasher struct {
	once     sync.Once
	done     chan struct{}
	sum, err string
}

func newHasher() *hasher { return &hasher{done: make(chan struct{})} }

func (h *hasher) start(hash func() (string, string)) {
	h.once.Do(func() {
		go func() {
			defer close(h.done)
			h.sum, h.err = hash()
		}()
	})
}

func (h *hasher) result(wait time.Duration) (string, string) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-h.done:
	case <-t.C:
		select {
		case <-h.done: // done just as the bound passed
		default:
			return "", NotYet
		}
	}
	return h.sum, h.err
}

var self = newHasher()

// executable is the file Self hashes. On Linux it is /proc/self/exe, which
// opens the very file this process runs from even after it was replaced
// on disk, where os.Executable's path may by then name another file.
// Elsewhere "/proc/self/exe" is an ordinary path anyone may create.
var executable = func() (string, error) {
	const self = "/proc/self/exe"
	if runtime.GOOS == "linux" {
		if _, err := os.Stat(self); err == nil {
			return self, nil
		}
	}
	return os.Executable()
}

// StartHash starts the hash, once, off the start-up path.
func StartHash() { self.start(hashExecutable) }

// hashExecutable's errors name no path: the page sees them.
func hashExecutable() (string, string) {
	path, err := executable()
	if err != nil {
		return "", "the executable's path is unknown: " + reason(err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", "the executable cannot be read: " + reason(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "the executable cannot be read: " + reason(err)
	}
	return hex.EncodeToString(h.Sum(nil)), ""
}

// reason is err without the path a *fs.PathError carries.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Self is the bridge's identity, waiting at most wait for the hash.
func Self(wait time.Duration) Identity { return SelfOf("stitchslop-bridge", wait) }

// SelfOf is Self for the program named name (stitchslop's version --json).
func SelfOf(name string, wait time.Duration) Identity {
	StartHash()
	id := Identity{Name: name, Version: Short(), Commit: commit(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	id.SHA256, id.SHA256Error = self.result(wait)
	return id
}
