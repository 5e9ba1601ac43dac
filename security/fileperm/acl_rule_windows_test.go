package fileperm

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The Windows owner-only rule, on plain values.

const (
	userSID     = "S-1-5-21-1-2-3-1001"
	adminsSID   = "S-1-5-32-544" // BUILTIN\Administrators
	everyoneSID = "S-1-1-0"
	systemSID   = "S-1-5-18"
	otherSID    = "S-1-5-21-1-2-3-1002"
)

// testName stands in for an account lookup.
func testName(sid string) string { return "name:" + sid }

func TestACLLooseness(t *testing.T) {
	allow := func(sid string) aclEntry { return aclEntry{sid: sid, allow: true} }
	deny := func(sid string) aclEntry { return aclEntry{sid: sid} }
	tests := []struct {
		name string
		s    secInfo
		want looseness
		desc string // describe(testName); "" when ok
	}{
		{"owner only", secInfo{protected: true, entries: []aclEntry{allow(userSID)}}, looseness{}, ""},
		{"empty protected DACL", secInfo{protected: true}, looseness{}, ""},
		{"deny entries are fine", secInfo{protected: true, entries: []aclEntry{deny(everyoneSID), allow(userSID), deny(otherSID)}}, looseness{}, ""},
		{"null DACL", secInfo{noDACL: true, protected: true}, looseness{noDACL: true},
			"no DACL, which gives everyone full access"},
		{"not protected", secInfo{entries: []aclEntry{allow(userSID)}}, looseness{inherits: true},
			"an ACL inheriting from its parent directory"},
		{"everyone", secInfo{protected: true, entries: []aclEntry{allow(userSID), allow(everyoneSID)}}, looseness{others: []string{everyoneSID}},
			"an ACL granting access to name:S-1-1-0"},
		{"SYSTEM and Administrators, inherited, each named once",
			secInfo{entries: []aclEntry{allow(systemSID), allow(adminsSID), allow(userSID), allow(systemSID)}},
			looseness{inherits: true, others: []string{systemSID, adminsSID}},
			"an ACL granting access to name:S-1-5-18, name:S-1-5-32-544 and inheriting from its parent directory"},
		{"entry not decoded", secInfo{protected: true, entries: []aclEntry{allow(userSID), {allow: true}}}, looseness{others: []string{""}},
			"an ACL granting access to an entry of a type not decoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.loosenessFor(userSID)
			if got.noDACL != tt.want.noDACL || got.inherits != tt.want.inherits || !slices.Equal(got.others, tt.want.others) {
				t.Errorf("loosenessFor(%q) = %+v, want %+v", userSID, got, tt.want)
			}
			if got.ok() != (tt.desc == "") {
				t.Errorf("loosenessFor(%q).ok() = %v, want %v", userSID, got.ok(), tt.desc == "")
			}
			if tt.desc != "" {
				if d := got.describe(testName); d != tt.desc {
					t.Errorf("describe() = %q, want %q", d, tt.desc)
				}
			}
		})
	}
}

func TestCheckACL(t *testing.T) {
	const path = `C:\Users\u\.stitchslop\pairing.json`
	me := token{user: userSID, defaultOwner: adminsSID}
	ownerOnly := []aclEntry{{sid: userSID, allow: true}}
	open := []aclEntry{{sid: userSID, allow: true}, {sid: everyoneSID, allow: true}}
	boom := errors.New("access is denied")
	tests := []struct {
		name       string
		s          secInfo
		repairErr  error
		wantRepair bool
		wantErr    []string // substrings; nil means no error
		wantWarn   []string // substrings; nil means no warning
	}{
		{"ours, owner only", secInfo{owner: userSID, protected: true, entries: ownerOnly}, nil, false, nil, nil},
		{"ours, everyone, repaired", secInfo{owner: userSID, protected: true, entries: open}, nil, true, nil,
			[]string{path, "had an ACL granting access to name:" + everyoneSID, "repaired to owner-only access for name:" + userSID}},
		{"default owner's, inheriting, repaired", secInfo{owner: adminsSID, entries: ownerOnly}, nil, true, nil,
			[]string{path, "inheriting from its parent directory", "repaired"}},
		{"ours, repair fails", secInfo{owner: userSID, protected: true, entries: open}, boom, true,
			[]string{path, "name:" + everyoneSID, "could not be repaired", "access is denied"}, nil},
		{"another user's", secInfo{owner: otherSID, protected: true, entries: open}, nil, false,
			[]string{path, "belongs to name:" + otherSID, "not to you, name:" + userSID, "refusing"}, nil},
		{"SYSTEM's, even owner-only", secInfo{owner: systemSID, protected: true, entries: ownerOnly}, nil, false,
			[]string{path, "belongs to name:" + systemSID}, nil},
		{"no owner", secInfo{protected: true, entries: ownerOnly}, nil, false,
			[]string{path, "belongs to no owner"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repaired := false
			repair := func() error { repaired = true; return tt.repairErr }
			var w warnings
			err := checkACL(path, tt.s, me, testName, repair, w.warn)
			if repaired != tt.wantRepair {
				t.Errorf("checkACL(%+v): repair called = %v, want %v", tt.s, repaired, tt.wantRepair)
			}
			if (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("checkACL(%+v) = %v, want error %v", tt.s, err, tt.wantErr != nil)
			}
			for _, sub := range tt.wantErr {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("checkACL(%+v) = %q, want it to contain %q", tt.s, err, sub)
				}
			}
			if tt.repairErr != nil && !errors.Is(err, tt.repairErr) {
				t.Errorf("checkACL(%+v) = %v, want it to wrap %v", tt.s, err, tt.repairErr)
			}
			if len(w) != min(len(tt.wantWarn), 1) {
				t.Fatalf("checkACL(%+v) warned %q, want %d warning(s)", tt.s, w, min(len(tt.wantWarn), 1))
			}
			for _, sub := range tt.wantWarn {
				if !strings.Contains(w[0], sub) {
					t.Errorf("warning %q, want it to contain %q", w[0], sub)
				}
			}
		})
	}
	// A nil Warn, as Lock passes, is fine.
	if err := checkACL(path, secInfo{owner: userSID, entries: ownerOnly}, me, testName, func() error { return nil }, nil); err != nil {
		t.Errorf("checkACL with nil warn = %v, want nil", err)
	}
}
