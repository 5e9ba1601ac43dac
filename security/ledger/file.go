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

// FileName is the name of the spent-token file in the config directory.
// Only this bridge reads it; the reference bridge knows nothing of it and
// keeps to usedTokens in pairing.json.
const FileName = "spent-tokens"

// FileKeep is how many fingerprints the spent-token file keeps when it is
// written: the newest FileKeep, plus every fingerprint still in some
// usedTokens list of pairing.json (see File.Write), so the file never
// forgets what pairing.json remembers. Ten thousand pairings is decades of
// one person's use, and the file stays at 330 KB, far below the
// limits.ConfigFile a read accepts (maxFileLines). It must be at least Keep:
// the file exists to remember more than usedTokens does, never less.
const FileKeep = 10000

// lineLen is one line of the file: a fingerprint and a newline.
const lineLen = credential.FingerprintLen + 1

// maxFileLines is the most lines File.Write ever writes, so that the file
// always fits in the limits.ConfigFile bytes fileperm.ReadFile accepts: a
// file this bridge wrote and then refused to read would refuse every
// redemption.
const maxFileLines = limits.ConfigFile / lineLen

// ErrCorrupt is wrapped by reads of a spent-token file that is not one
// fingerprint per line. A caller must then refuse to redeem any token: the
// file might have held the fingerprint of the very token being presented.
var ErrCorrupt = errors.New("the spent-token file is not valid")

// File is the spent-token file: one fingerprint per line, oldest first. It
// is what makes a redeemed token stay spent when pairing.json is deleted or
// loses the entry (T6): the user is told to revoke with `unpair`, which
// keeps it, and no longer by deleting files.
//
// The file is append-only: lines are added at the end and only the oldest
// are ever dropped, by Write's bound. Each write replaces the whole file
// atomically rather than appending in place, so a crash cannot leave a torn
// last line, which would otherwise refuse every later redemption.
//
// The caller holds the pairing file's lock (fileperm.Lock) from ReadFile to
// Write, as for pairing.json, so two bridges recording at once cannot lose
// a line (T14). A read without the lock is safe too: Write replaces the
// file atomically, so a reader sees the old file or the new one.
type File struct {
	path  string
	fps   []string        // normalised, valid, unique, oldest first
	set   map[string]bool // the same, for deduplication only
	dirty bool
}

// ReadFile reads the spent-token file at path with fileperm.ReadFile's
// checks (no symbolic link, a regular file of the user's own, a looser mode
// than 0600 tightened with a warning, at most limits.ConfigFile bytes; T13). A missing file is an empty
// ledger. Each line must hold one fingerprint (32 hex characters; case and
// surrounding space are forgiven, as in usedTokens, so a hand-edited file
// still refuses); blank lines are skipped. Anything else is ErrCorrupt,
// naming the path and the line but never echoing it, since a line there
// could be a token in the clear.
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

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Len is the number of fingerprints in the file.
func (f *File) Len() int { return len(f.fps) }

// Spent reports whether token's fingerprint is in the file. Like Spent, it
// compares every entry in constant time and never stops early; the entries
// are fixed-width, so no hashing is needed to compare them safely.
func (f *File) Spent(token string) bool {
	return Spent(f.fps, token)
}

// Record adds token's fingerprint, newest last, if it is not there yet.
func (f *File) Record(token string) { f.Add(credential.Fingerprint(token)) }

// Add adds fingerprints (as usedTokens holds them) that are not there yet,
// newest last. Entries that are not fingerprints are skipped: they match no
// token, and writing one would make the file unreadable.
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

// Write adds keep (the usedTokens lists of pairing.json, see Add), then
// writes the file if that, Record or Add changed it: atomically, fsynced,
// mode 0600 (fileperm.WriteFile), so a crash leaves the old file or the new
// one and never a torn line that would refuse every later redemption.
// Growth is bounded here: the newest FileKeep fingerprints are kept, and
// so is every one in keep, so the file never remembers less than
// pairing.json; past maxFileLines the oldest go whatever keep says. Call it
// with the lock held.
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
	// out is never empty: a dirty file has at least the fingerprint added.
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

// valid reports whether s is a normalised fingerprint: FingerprintLen
// lower-case hex characters.
func valid(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == credential.FingerprintLen && err == nil && s == normal(s)
}
