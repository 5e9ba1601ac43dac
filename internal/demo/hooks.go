//go:build stitchslop_testhooks

package demo

import (
	"os"
	"strconv"
)

// hookedPagePort, in a build with the stitchslop_testhooks tag only (the
// black-box tests'), is the port STITCHSLOP_TEST_DEMO_PAGE_PORT names, to
// use instead of PagePort: a test that restarts the demo on one origin then
// needs no 8780 of its own, which a real demo on the machine may hold.
func hookedPagePort() int {
	p, _ := strconv.Atoi(os.Getenv("STITCHSLOP_TEST_DEMO_PAGE_PORT"))
	return p
}
