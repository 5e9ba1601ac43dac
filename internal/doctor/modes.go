package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/paths"
	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
	"github.com/stitchslop/stitchslop-bridge/security/ledger"
)

// checksModes: modes and owners are examined where fileperm judges them;
// on Windows the owner-only ACLs are fileperm's to check and repair when
// the bridge opens them, and doctor does not examine them.
const checksModes = fileperm.JudgesAccess

// checkDir examines the config directory as fileperm judges it
// (fileperm.Judge). It reports whether the directory is there to look into.
func (d *doctor) checkDir() bool {
	dir := d.o.ConfigDir
	v, err := fileperm.Judge(dir, true)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(Finding{Check: "config_dir", Severity: Info, Subject: dir,
			Message: fmt.Sprintf("does not exist yet: no bridge has run with this config dir (the first one creates it with mode %04o)", fileperm.DirMode)})
		return false
	case err != nil:
		d.add(Finding{Check: "config_dir", Severity: Problem, Subject: dir,
			Message: "cannot be examined: " + err.Error(), Fix: "check that you can read it, or pass --config-dir"})
		return false
	case v.Fault == fileperm.Link:
		d.add(Finding{Check: "config_dir", Severity: Problem, Subject: dir,
			Message: "is a symbolic link; the bridge refuses to use a config dir through one",
			Fix:     "pass --config-dir with the real directory"})
		return false
	case v.Fault == fileperm.WrongKind:
		d.add(Finding{Check: "config_dir", Severity: Problem, Subject: dir,
			Message: fmt.Sprintf("is not a directory (mode %v); the bridge cannot start with it", v.Info.Mode()),
			Fix:     "move it out of the way, or pass --config-dir with another directory"})
		return false
	case !checksModes:
		d.add(Finding{Check: "config_dir", Severity: Info, Subject: dir,
			Message: "its access control is not examined on Windows; the bridge gives it and its files an owner-only ACL itself when it starts"})
		return true
	case v.Fault == fileperm.NotYours:
		d.add(Finding{Check: "config_dir", Severity: Problem, Subject: dir,
			Message: fmt.Sprintf("belongs to uid %d, not to you (uid %d): its owner can read and replace your pairings, and the bridge refuses it", v.Owner, os.Getuid()),
			Fix:     "use a config dir of your own (--config-dir), or have an administrator give this one to you"})
		return true
	case v.Fault == fileperm.Loose:
		d.add(Finding{Check: "config_dir", Severity: Problem, Subject: dir,
			Message: fmt.Sprintf("has mode %04o, looser than %04o: other users can reach the files that hold your pairing secrets (a bridge starting tightens it, with a warning)", v.Info.Mode().Perm(), fileperm.DirMode),
			Fix:     "chmod 700 " + setup.QuotePosix(dir)})
		return true
	}
	d.add(Finding{Check: "config_dir", Severity: OK, Subject: dir, Message: fmt.Sprintf("mode %04o, yours", fileperm.DirMode)})
	return true
}

// holdsSecrets reports whether a file of the config dir holds a secret (a
// pairing secret, a spent-token fingerprint, a session key), or is one the
// bridge writes with FileMode anyway.
func holdsSecrets(name string) bool {
	pairingFile := filepath.Base(paths.Pairing(""))
	switch {
	case name == pairingFile, name == ledger.FileName, name == "session.json":
		return true
	case strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".json"):
		return true
	case strings.HasPrefix(name, pairingFile+fileperm.CorruptSuffix):
		return true // a corrupt pairing.json kept aside: it may hold secrets
	case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp"):
		return true // a temp file of an atomic write that was cut short
	}
	return false
}

// checkFiles examines the files of the config dir that hold secrets, as
// fileperm judges them. It reports which may be read through their own
// reader (internal/pairing, internal/session) without that read changing
// them (it repairs a loose mode): missing, or regular, the user's own and
// FileMode; every one where modes are not examined.
func (d *doctor) checkFiles() (readable func(path string) bool) {
	if !checksModes {
		return func(string) bool { return true }
	}
	dir := d.o.ConfigDir
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.add(Finding{Check: "file_mode", Severity: Problem, Subject: dir,
			Message: "cannot list its files: " + err.Error(), Fix: "check that you can read it"})
		return func(string) bool { return false }
	}
	unreadable := map[string]bool{}
	checked, bad := 0, 0
	for _, e := range entries {
		name := e.Name()
		if !holdsSecrets(name) {
			continue
		}
		p := filepath.Join(dir, name)
		v, err := fileperm.Judge(p, false)
		if err != nil {
			continue // gone meanwhile
		}
		checked++
		if !d.checkFile(p, v) {
			bad++
			unreadable[p] = true
		}
	}
	if checked > 0 && bad == 0 {
		d.add(Finding{Check: "file_mode", Severity: OK, Subject: dir,
			Message: fmt.Sprintf("%s holding secrets, each mode %04o and yours", plural(checked, "file"), fileperm.FileMode)})
	}
	return func(p string) bool { return !unreadable[p] }
}

// checkFile words fileperm's verdict v on one file that holds secrets, and
// reports whether it is as it should be.
func (d *doctor) checkFile(p string, v fileperm.Verdict) bool {
	f := Finding{Check: "file_mode", Severity: Problem, Subject: p}
	switch perm := v.Info.Mode().Perm(); v.Fault {
	case fileperm.Link:
		f.Message = "is a symbolic link; the bridge refuses to read or write through one"
		f.Fix = "replace the link with the file itself, mode 0600, or remove it: rm " + setup.QuotePosix(p)
	case fileperm.WrongKind:
		f.Message = fmt.Sprintf("is not a regular file (mode %v); the bridge refuses it", v.Info.Mode())
		f.Fix = "move it out of the way"
	case fileperm.NotYours:
		f.Message = fmt.Sprintf("belongs to uid %d, not to you (uid %d); the bridge refuses it", v.Owner, os.Getuid())
		f.Fix = "remove it (rm " + setup.QuotePosix(p) + "), or have an administrator give it to you"
	case fileperm.Loose:
		f.Message = fmt.Sprintf("has mode %04o, looser than %04o: it holds secrets other users may read (a bridge reading it tightens it, with a warning)", perm, fileperm.FileMode)
		f.Fix = "chmod 600 " + setup.QuotePosix(p)
		if filepath.Base(p) == filepath.Base(paths.Pairing("")) && perm&0o044 != 0 {
			f.Fix += "; the pairing secrets in it may have been read, so revoke them too: stitchslop-bridge unpair --all, then pair each site again"
		}
	default:
		return true
	}
	d.add(f)
	return false
}
