//go:build windows

package fileperm

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ACE types (winnt.h) that x/sys does not name. The callback ones are laid
// out as ACCESS_ALLOWED_ACE; the object ones carry GUIDs before the SID and
// are not decoded (see decodeACE).
const (
	accessAllowedCallbackACEType      = 0x9
	accessDeniedCallbackACEType       = 0xA
	accessDeniedObjectACEType         = 0x6
	accessDeniedCallbackObjectACEType = 0xC
)

// winToken is token (acl_rule_windows.go) as SIDs.
type winToken struct{ user, owner *windows.SID }

// Test hooks, swapped in t.Cleanup.
var (
	currentToken    = sync.OnceValues(readToken)
	setSecurityInfo = windows.SetSecurityInfo
)

func readToken() (winToken, error) {
	t := windows.GetCurrentProcessToken()
	tu, err := t.GetTokenUser()
	if err != nil {
		return winToken{}, err
	}
	// TOKEN_OWNER is one pointer to a SID the call writes after it; a SID
	// is at most 68 bytes (SECURITY_MAX_SID_SIZE).
	buf := make([]byte, 128)
	var n uint32
	if err := windows.GetTokenInformation(t, windows.TokenOwner, &buf[0], uint32(len(buf)), &n); err != nil {
		return winToken{}, err
	}
	var tok winToken
	if tok.user, err = tu.User.Sid.Copy(); err != nil {
		return winToken{}, err
	}
	if tok.owner, err = (*(**windows.SID)(unsafe.Pointer(&buf[0]))).Copy(); err != nil {
		return winToken{}, err
	}
	return tok, nil
}

// ownerOnly is the descriptor every object gets: owner user (not the
// token's default owner, so an elevated run's directory stays the user's)
// and a protected DACL of one entry, user's. SYSTEM gets none: it reads
// anything through its privileges anyway, and without one an indexer or
// sync agent running as SYSTEM is kept out. Administrators get none: an
// entry would hand the files to every elevated process.
func ownerOnly(user *windows.SID, dir bool) (*windows.SECURITY_DESCRIPTOR, error) {
	inherit := ""
	if dir {
		inherit = "OICI"
	}
	u := user.String()
	return windows.SecurityDescriptorFromString("O:" + u + "D:P(A;" + inherit + ";FA;;;" + u + ")")
}

// privateAttributes is ownerOnly for the token's user, given at creation.
func privateAttributes(dir bool) (*windows.SecurityAttributes, error) {
	tok, err := currentToken()
	if err != nil {
		return nil, err
	}
	sd, err := ownerOnly(tok.user, dir)
	if err != nil {
		return nil, err
	}
	return &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}, nil
}

func readSecInfo(h windows.Handle) (secInfo, error) {
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return secInfo{}, err
	}
	var s secInfo
	if owner, _, err := sd.Owner(); err == nil && owner != nil {
		s.owner = owner.String()
	}
	control, _, err := sd.Control()
	if err != nil {
		return secInfo{}, err
	}
	s.protected = control&windows.SE_DACL_PROTECTED != 0
	dacl, _, err := sd.DACL()
	if errors.Is(err, windows.ERROR_OBJECT_NOT_FOUND) || (err == nil && dacl == nil) {
		s.noDACL = true
		return s, nil
	}
	if err != nil {
		return secInfo{}, err
	}
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return secInfo{}, err
		}
		s.entries = append(s.entries, decodeACE(ace))
	}
	return s, nil
}

// decodeACE reads the SID of the ACE types laid out as ACCESS_ALLOWED_ACE;
// other deny types count as deny, any other type as an allow entry for an
// unknown principal, which the rule repairs away.
func decodeACE(ace *windows.ACCESS_ALLOWED_ACE) aclEntry {
	sid := func() string { return (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String() }
	switch ace.Header.AceType {
	case windows.ACCESS_ALLOWED_ACE_TYPE, accessAllowedCallbackACEType:
		return aclEntry{sid: sid(), allow: true}
	case windows.ACCESS_DENIED_ACE_TYPE, accessDeniedCallbackACEType:
		return aclEntry{sid: sid()}
	case accessDeniedObjectACEType, accessDeniedCallbackObjectACEType:
		return aclEntry{}
	}
	return aclEntry{allow: true}
}

// repairDACL gives the object at path, which must still be the one
// described by fi, the owner-only DACL. It reopens the path without
// following a reparse point for WRITE_DAC, which the handle that was read
// lacks, and checks the identity before writing.
func repairDACL(path string, fi fs.FileInfo, user *windows.SID) error {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(p, windows.READ_CONTROL|windows.WRITE_DAC|windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return err
	}
	g := os.NewFile(uintptr(h), path)
	defer g.Close()
	gfi, err := g.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(fi, gfi) {
		return errors.New("it was replaced while being checked")
	}
	sd, err := ownerOnly(user, fi.IsDir())
	if err != nil {
		return err
	}
	acl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return setSecurityInfo(h, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
}

// principalName names a SID for a message: "NT AUTHORITY\SYSTEM
// (S-1-5-18)", or the SID alone if it does not resolve.
func principalName(s string) string {
	sid, err := windows.StringToSid(s)
	if err != nil {
		return s
	}
	account, domain, _, err := sid.LookupAccount("")
	switch {
	case err != nil || account == "":
		return s
	case domain == "":
		return account + " (" + s + ")"
	}
	return domain + `\` + account + " (" + s + ")"
}
