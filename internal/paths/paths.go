// Package paths says where the bridge keeps its files.
package paths

import (
	"path/filepath"

	"github.com/adrg/xdg"
)

// DirName is the config directory's name under the home directory, shared
// with the Stitch Slop team's own bridge.
const DirName = ".stitchslop"

// DefaultConfigDir is ~/.stitchslop.
func DefaultConfigDir() string {
	return filepath.Join(xdg.Home, DirName)
}

// Pairing is the pairing file in dir.
func Pairing(dir string) string { return filepath.Join(dir, "pairing.json") }
