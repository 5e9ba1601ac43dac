// Command stitchslop holds the tools a person runs by hand beside
// stitchslop-bridge: demo, setup, doctor, listen, completion and man. None
// of it is linked into the bridge.
package main

import (
	"github.com/stitchslop/stitchslop-bridge/internal/cli"
	"github.com/stitchslop/stitchslop-bridge/internal/toolbox"
)

func main() { cli.Exec(toolbox.Program) }
