package main

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// renameOpen asks whether a file can be renamed over another that a
// reader holds open with FILE_SHARE_DELETE, as Windows allows (and as
// security/files' writer and readers rely on, so that bridges sharing a
// config dir can replace pairing.json while one of them reads it). Wine 8
// answers Access denied.
func renameOpen(dir string) (bool, string, error) {
	d, err := os.MkdirTemp(dir, "renameprobe")
	if err != nil {
		return false, "", err
	}
	defer os.RemoveAll(d)
	target, next := filepath.Join(d, "target"), filepath.Join(d, "next")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		return false, "", err
	}
	if err := os.WriteFile(next, []byte("new"), 0o600); err != nil {
		return false, "", err
	}
	p, err := windows.UTF16PtrFromString(target)
	if err != nil {
		return false, "", err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return false, "", err
	}
	defer windows.CloseHandle(h)
	switch err := os.Rename(next, target); {
	case err == nil:
		return true, "a file held open with FILE_SHARE_DELETE was replaced by a rename", nil
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return false, "a rename over a file held open with FILE_SHARE_DELETE is refused: " + err.Error(), nil
	default:
		return false, "", err
	}
}
