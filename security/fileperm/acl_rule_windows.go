package fileperm

import (
	"fmt"
	"slices"
	"strings"
)

// On Windows, T10 rests on an owner-only DACL rather than on mode bits
// (acl_windows.go). The rule that judges an existing object's security
// descriptor lives here, over plain values, so that its tests need no
// real descriptors: acl_windows.go only turns descriptors into these
// values and writes the repair. No other system's binary holds it.

type aclEntry struct {
	sid   string // the principal, "S-1-1-0"; "" for an entry type not decoded
	allow bool   // false for a deny entry, which can only take access away
}

// secInfo is what the rule reads of an object's security descriptor.
type secInfo struct {
	owner     string     // the owner's SID; "" if it has none
	noDACL    bool       // no DACL, or a NULL one: full access for everyone
	protected bool       // SE_DACL_PROTECTED: nothing inherited from the parent
	entries   []aclEntry // the DACL, in order
}

// token is who this process is on Windows, as SIDs: its token's user, and
// its token's default owner, the owner Windows gives what the process
// creates without naming one. They differ for an elevated administrator on
// systems where that owner is the Administrators group.
type token struct{ user, defaultOwner string }

// looseness says why an object is not owner-only; the zero value: it is.
type looseness struct {
	noDACL   bool
	inherits bool
	others   []string // principals other than the user that an allow entry names, once each
}

// loosenessFor judges s against "only user has access, and nothing is
// inherited". Deny entries are ignored: they only take access away. An
// entry of a type not decoded counts as granting access to someone else.
func (s secInfo) loosenessFor(user string) looseness {
	if s.noDACL {
		return looseness{noDACL: true}
	}
	l := looseness{inherits: !s.protected}
	for _, e := range s.entries {
		if e.allow && e.sid != user && !slices.Contains(l.others, e.sid) {
			l.others = append(l.others, e.sid)
		}
	}
	return l
}

func (l looseness) ok() bool { return !l.noDACL && !l.inherits && len(l.others) == 0 }

func (l looseness) describe(name func(sid string) string) string {
	if l.noDACL {
		return "no DACL, which gives everyone full access"
	}
	var parts []string
	if len(l.others) > 0 {
		names := make([]string, len(l.others))
		for i, sid := range l.others {
			names[i] = "an entry of a type not decoded"
			if sid != "" {
				names[i] = name(sid)
			}
		}
		parts = append(parts, "granting access to "+strings.Join(names, ", "))
	}
	if l.inherits {
		parts = append(parts, "inheriting from its parent directory")
	}
	return "an ACL " + strings.Join(parts, " and ")
}

// checkACL is checkAccess on Windows: an object not ours is refused, never
// repaired, like another uid's file on Unix; a loose one of ours is
// repaired and reported through warn.
func checkACL(path string, s secInfo, tok token, name func(sid string) string, repair func() error, warn Warn) error {
	if s.owner == "" || (s.owner != tok.user && s.owner != tok.defaultOwner) {
		owner := "no owner"
		if s.owner != "" {
			owner = name(s.owner)
		}
		return fmt.Errorf("%s belongs to %s, not to you, %s; refusing to use it", path, owner, name(tok.user))
	}
	l := s.loosenessFor(tok.user)
	if l.ok() {
		return nil
	}
	if err := repair(); err != nil {
		return fmt.Errorf("%s has %s, and could not be repaired: %w", path, l.describe(name), err)
	}
	if warn != nil {
		warn(fmt.Sprintf("%s had %s; repaired to owner-only access for %s", path, l.describe(name), name(tok.user)))
	}
	return nil
}
