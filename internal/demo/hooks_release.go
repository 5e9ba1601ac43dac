//go:build !stitchslop_testhooks

package demo

// hookedPagePort is 0 in a release build: the page port is PagePort's, or
// any free one (hooks.go).
func hookedPagePort() int { return 0 }
