//go:build windows

package fileperm

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Written from winnt.h, never from the production constants.
const (
	specFileAllAccess   = 0x001F01FF // FILE_ALL_ACCESS, SDDL "FA"
	specFileGenericRead = 0x00120089 // FILE_GENERIC_READ
	specDACLProtected   = 0x1000     // SE_DACL_PROTECTED
	specAllowedACE      = 0          // ACCESS_ALLOWED_ACE_TYPE
	specOICI            = 0x03       // OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE
	specEveryone        = "S-1-1-0"
	specSystem          = "S-1-5-18"
)

type aceRead struct {
	typ, flags uint8
	mask       uint32
	sid        string
}

type descRead struct {
	owner     string
	protected bool
	aces      []aceRead
}

// me is the process token's user, read without the production code.
func me(t *testing.T) string {
	t.Helper()
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	return tu.User.Sid.String()
}

// readBack reads path's owner and DACL by name.
func readBack(t *testing.T, path string) descRead {
	t.Helper()
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("GetNamedSecurityInfo(%q) = %v", path, err)
	}
	var d descRead
	owner, _, err := sd.Owner()
	if err != nil {
		t.Fatal(err)
	}
	d.owner = owner.String()
	control, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	d.protected = control&specDACLProtected != 0
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("%s: DACL = %v, %v; want one", path, dacl, err)
	}
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
		d.aces = append(d.aces, aceRead{ace.Header.AceType, ace.Header.AceFlags, uint32(ace.Mask), sid})
	}
	return d
}

// wantOwnerOnly asserts path's DACL is protected and holds one entry: full
// control for the user, with the given inheritance flags; and, if owner,
// that the user owns it.
func wantOwnerOnly(t *testing.T, path string, flags uint8, owner bool) {
	t.Helper()
	user := me(t)
	d := readBack(t, path)
	want := aceRead{specAllowedACE, flags, specFileAllAccess, user}
	if !d.protected || len(d.aces) != 1 || d.aces[0] != want {
		t.Errorf("%s: protected %v, entries %+v; want protected and only %+v", path, d.protected, d.aces, want)
	}
	if owner && d.owner != user {
		t.Errorf("%s: owner %s, want %s", path, d.owner, user)
	}
}

// setACL gives path a DACL of full control for the user plus read for
// Everyone, protected or inheriting from the parent.
func setACL(t *testing.T, path string, protect bool) {
	t.Helper()
	user, err := windows.StringToSid(me(t))
	if err != nil {
		t.Fatal(err)
	}
	everyone, err := windows.StringToSid(specEveryone)
	if err != nil {
		t.Fatal(err)
	}
	var pin runtime.Pinner
	pin.Pin(user)
	pin.Pin(everyone)
	defer pin.Unpin()
	entry := func(sid *windows.SID, mask windows.ACCESS_MASK) windows.EXPLICIT_ACCESS {
		return windows.EXPLICIT_ACCESS{AccessPermissions: mask, AccessMode: windows.GRANT_ACCESS, Trustee: windows.TRUSTEE{
			TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeValue: windows.TrusteeValueFromSID(sid)}}
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{entry(user, specFileAllAccess), entry(everyone, specFileGenericRead)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := windows.SECURITY_INFORMATION(windows.DACL_SECURITY_INFORMATION | windows.UNPROTECTED_DACL_SECURITY_INFORMATION)
	if protect {
		info = windows.DACL_SECURITY_INFORMATION | windows.PROTECTED_DACL_SECURITY_INFORMATION
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, info, nil, nil, acl, nil); err != nil {
		t.Fatalf("SetNamedSecurityInfo(%q) = %v", path, err)
	}
	if d := readBack(t, path); !strings.Contains(sidsOf(d), specEveryone) {
		t.Fatalf("%s: entries %+v, want one for Everyone", path, d.aces)
	}
}

func sidsOf(d descRead) string {
	var s []string
	for _, a := range d.aces {
		s = append(s, a.sid)
	}
	return strings.Join(s, " ")
}

func TestEnsureDirCreatesOwnerOnlyACL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", ".stitchslop")
	var w warnings
	if err := EnsureDir(dir, w.warn); err != nil {
		t.Fatalf("EnsureDir(%q) = %v, want nil", dir, err)
	}
	wantOwnerOnly(t, dir, specOICI, true)
	// What it created passes its own check untouched.
	if err := EnsureDir(dir, w.warn); err != nil || len(w) != 0 {
		t.Errorf("EnsureDir(%q) again = %v, warnings %q; want nil and none", dir, err, w)
	}
}

func TestWriteFileOwnerOnlyACL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	if err := EnsureDir(dir, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pairing.json")
	if err := WriteFile(path, []byte("hello")); err != nil {
		t.Fatalf("WriteFile(%q) = %v", path, err)
	}
	wantOwnerOnly(t, path, 0, true)
	checkOnly(t, dir, path, "hello")

	// Replacing a file that inherits its parent's ACL.
	loose := filepath.Join(t.TempDir(), "pairing.json")
	writeRaw(t, loose, "old", 0o600)
	if err := WriteFile(loose, []byte("new")); err != nil {
		t.Fatalf("WriteFile(%q) = %v", loose, err)
	}
	wantOwnerOnly(t, loose, 0, true)

	var w warnings
	if err := CheckFile(path, w.warn); err != nil || len(w) != 0 {
		t.Errorf("CheckFile(%q) = %v, warnings %q; want nil and none", path, err, w)
	}
	unlock, err := Lock(path)
	if err != nil {
		t.Fatalf("Lock(%q) = %v", path, err)
	}
	unlock()
	wantOwnerOnly(t, path+".lock", 0, true)
}

func TestEnsureDirRepairsInheritedACL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	if err := os.Mkdir(dir, 0o700); err != nil { // inherits from the temp dir
		t.Fatal(err)
	}
	var w warnings
	if err := EnsureDir(dir, w.warn); err != nil {
		t.Fatalf("EnsureDir(%q) = %v, want nil", dir, err)
	}
	if len(w) != 1 || !strings.Contains(w[0], dir) || !strings.Contains(w[0], "inheriting from its parent directory") || !strings.Contains(w[0], "repaired") {
		t.Errorf("warnings = %q, want one naming %s and its inherited ACL", w, dir)
	}
	wantOwnerOnly(t, dir, specOICI, false)
}

func TestCheckFileRepairsEveryoneACL(t *testing.T) {
	for _, protect := range []bool{true, false} {
		name := "protected"
		if !protect {
			name = "inheriting"
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pairing.json")
			if err := WriteFile(path, []byte("{}")); err != nil {
				t.Fatal(err)
			}
			setACL(t, path, protect)
			var w warnings
			if err := CheckFile(path, w.warn); err != nil {
				t.Fatalf("CheckFile(%q) = %v, want nil", path, err)
			}
			if len(w) != 1 || !strings.Contains(w[0], path) || !strings.Contains(w[0], specEveryone) || !strings.Contains(w[0], "repaired") {
				t.Errorf("warnings = %q, want one naming %s and %s", w, path, specEveryone)
			}
			wantOwnerOnly(t, path, 0, true)
		})
	}
}

func TestCheckFileRefusesUnrepairableACL(t *testing.T) {
	old := setSecurityInfo
	t.Cleanup(func() { setSecurityInfo = old })
	setSecurityInfo = func(windows.Handle, windows.SE_OBJECT_TYPE, windows.SECURITY_INFORMATION, *windows.SID, *windows.SID, *windows.ACL, *windows.ACL) error {
		return windows.ERROR_ACCESS_DENIED
	}
	path := filepath.Join(t.TempDir(), "pairing.json")
	if err := WriteFile(path, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	setACL(t, path, true)
	var w warnings
	err := CheckFile(path, w.warn)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), specEveryone) || !strings.Contains(err.Error(), "could not be repaired") {
		t.Errorf("CheckFile(%q) = %v, want a refusal naming the path and %s", path, err, specEveryone)
	}
	if b, err := ReadFile(path, w.warn); err == nil || b != nil {
		t.Errorf("ReadFile(%q) = %q, %v; want nil and an error", path, b, err)
	}
	if len(w) != 0 {
		t.Errorf("warnings = %q, want a refusal only", w)
	}
	if d := readBack(t, path); !strings.Contains(sidsOf(d), specEveryone) {
		t.Errorf("%s: entries %+v; the refused ACL changed", path, d.aces)
	}
}

func TestRefusesOtherOwnerACL(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "cfg")
	if err := EnsureDir(dir, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pairing.json")
	if err := WriteFile(path, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	user := me(t)
	// Pretend to be SYSTEM: every object looks like another's.
	system, err := windows.StringToSid(specSystem)
	if err != nil {
		t.Fatal(err)
	}
	old := currentToken
	t.Cleanup(func() { currentToken = old })
	currentToken = func() (winToken, error) { return winToken{user: system, owner: system}, nil }

	var w warnings
	for _, check := range []struct {
		name string
		path string
		err  error
	}{
		{"CheckFile", path, CheckFile(path, w.warn)},
		{"EnsureDir", dir, EnsureDir(dir, w.warn)},
	} {
		if check.err == nil || !strings.Contains(check.err.Error(), check.path) || !strings.Contains(check.err.Error(), "belongs to") ||
			!strings.Contains(check.err.Error(), user) || !strings.Contains(check.err.Error(), specSystem) {
			t.Errorf("%s(%q) = %v, want a refusal naming the path, the owner %s and you, %s", check.name, check.path, check.err, user, specSystem)
		}
	}
	if len(w) != 0 {
		t.Errorf("warnings = %q, want refusals only", w)
	}
	currentToken = old
	wantOwnerOnly(t, path, 0, true)
	wantOwnerOnly(t, dir, specOICI, true)
}
