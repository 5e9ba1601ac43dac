package main

import (
	"encoding/json"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

type entry struct {
	SID  string `json:"sid"`
	Type uint8  `json:"type"`
	Mask uint32 `json:"mask"`
}

func check(path string) (bool, string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return false, "", fmt.Errorf("reading the security of %s: %w", path, err)
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return false, "", fmt.Errorf("reading this process's user: %w", err)
	}
	user := tu.User.Sid
	owner, _, err := sd.Owner()
	if err != nil {
		return false, "", err
	}
	control, _, err := sd.Control()
	if err != nil {
		return false, "", err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return false, "", err
	}
	var entries []entry
	protected := control&windows.SE_DACL_PROTECTED != 0
	ok := dacl != nil && dacl.AceCount > 0 && protected
	if dacl != nil {
		for i := uint32(0); i < uint32(dacl.AceCount); i++ {
			var ace *windows.ACCESS_ALLOWED_ACE
			if err := windows.GetAce(dacl, i, &ace); err != nil {
				return false, "", err
			}
			sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
			entries = append(entries, entry{SID: sid.String(), Type: ace.Header.AceType, Mask: uint32(ace.Mask)})
			if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || !sid.Equals(user) {
				ok = false
			}
		}
	}
	doc, err := json.Marshal(map[string]any{
		"path": path, "user": user.String(), "owner": owner.String(),
		"protected": protected, "entries": entries, "owner_only": ok,
	})
	return ok, string(doc), err
}

// daclKept sets a protected owner-only DACL on a new directory in dir and
// reports whether reading it back gives that DACL.
func daclKept(dir string) (bool, string, error) {
	p, err := os.MkdirTemp(dir, "aclprobe")
	if err != nil {
		return false, "", err
	}
	defer os.Remove(p)
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return false, "", err
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.SET_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(tu.User.Sid),
		},
	}}, nil)
	if err != nil {
		return false, "", err
	}
	if err := windows.SetNamedSecurityInfo(p, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		return false, "", fmt.Errorf("setting a DACL on %s: %w", p, err)
	}
	ok, line, err := check(p)
	if err != nil {
		return false, "", err
	}
	return ok, line, nil
}
