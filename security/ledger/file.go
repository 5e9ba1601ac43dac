package ledger

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/security/credential"
	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

const FileName = "spent-tokens"

// FileKeep, besides every one still in usedTokens; at least Keep, since the
// file exists to remember more than usedTokens.
const FileKeep = 10000

const lineLen = credential.FingerprintLen + 1

// maxFileLines keeps the file within what fileperm.ReadFile accepts: a file
// this bridge wrote and then refused to read would refuse every redemption.
const maxFileLines = limits.ConfigFile / lineLen

var ErrCorrupt = errors.New("the spent-token file is not valid")

// File is the spent-token file, one fingerprint per line, oldest first,
// replaced whole on each write: a torn line would refuse every redemption.
type File struct {
	path  string
	fps   []string // normalised, valid, unique, oldest first
	set   map[string]bool
	dirty bool
}

// ReadFile reads the spent-token file with fileperm.ReadFile's checks
// (T13); a missing file is an empty ledger. A line that is not a
// fingerprint is ErrCorrupt, by number, never echoed: it could be a token.
func ReadFile(path string, warn fileperm.Warn) (*File, error) {
	b, err := fileperm.ReadFile(path, warn)
	if err != nil {
		return nil, fmt.Errorf("spent-token file: %w", err)
	}
	f := &File{path: path, set: map[string]bool{}}
	for i, line := range bytes.Split(b, []byte("\n")) {
		s := normal(string(line))
		if s != "" && !valid(s) {
			return nil, fmt.Errorf("%w: %s: line %d is not a token fingerprint (%d hex characters)",
				ErrCorrupt, path, i+1, credential.FingerprintLen)
		}
		f.Add(s)
	}
	f.dirty = false // what was read is on disk already
	return f, nil
}

func (f *File) Path() string { return f.path }

func (f *File) Len() int { return len(f.fps) }

func (f *File) Spent(token string) bool {
	return Spent(f.fps, token)
}

func (f *File) Record(token string) { f.Add(credential.Fingerprint(token)) }

// Add adds fingerprints that are not there yet, newest last, skipping what
// is not one: it matches no token and would make the file unreadable.
func (f *File) Add(fps ...string) {
	for _, fp := range fps {
		fp = normal(fp)
		if valid(fp) && !f.set[fp] {
			f.set[fp] = true
			f.fps = append(f.fps, fp)
			f.dirty = true
		}
	}
}

// Write adds keep (usedTokens) and, if anything changed, writes the newest
// FileKeep and every one in keep, at most maxFileLines.
func (f *File) Write(keep []string) error {
	f.Add(keep...)
	if !f.dirty {
		return nil
	}
	pinned := map[string]bool{}
	for _, k := range keep {
		pinned[normal(k)] = true
	}
	out := f.fps
	if len(out) > FileKeep {
		cut := len(out) - FileKeep
		out = make([]string, 0, FileKeep)
		for i, fp := range f.fps {
			if i >= cut || pinned[fp] {
				out = append(out, fp)
			}
		}
	}
	if len(out) > maxFileLines {
		out = out[len(out)-maxFileLines:]
	}
	if err := fileperm.WriteFile(f.path, []byte(strings.Join(out, "\n")+"\n")); err != nil {
		return fmt.Errorf("spent-token file: %w", err)
	}
	if len(out) < len(f.fps) {
		f.set = make(map[string]bool, len(out))
		for _, fp := range out {
			f.set[fp] = true
		}
	}
	f.fps, f.dirty = out, false
	return nil
}

// valid reports whether s is a normalised fingerprint.
func valid(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == credential.FingerprintLen && err == nil && s == normal(s)
}
