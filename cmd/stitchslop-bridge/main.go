// Command stitchslop-bridge connects an AI agent to the Stitch Slop design
// open in a browser tab.
package main

import "github.com/stitchslop/stitchslop-bridge/internal/cli"

func main() { cli.Exec(cli.Bridge) }
