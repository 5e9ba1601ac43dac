// Package paths says where the bridge keeps its files.
package paths

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/adrg/xdg"
)

// DirName is the config directory's name under the home directory, shared
// with the Stitch Slop team's own bridge.
const DirName = ".stitchslop"

// DefaultConfigDir is ~/.stitchslop. With no absolute home directory there
// is none: a guess (/.stitchslop, or relative to wherever the bridge was
// started) would scatter pairings.
func DefaultConfigDir() (string, error) {
	home := xdg.Home
	if runtime.GOOS != "windows" {
		home = os.Getenv("HOME")
	}
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("there is no home directory for ~/" + DirName + " ($HOME is empty or not an absolute path); name a config dir with --config-dir DIR")
	}
	return filepath.Join(home, DirName), nil
}

// Pairing is the pairing file in dir.
func Pairing(dir string) string { return filepath.Join(dir, "pairing.json") }
