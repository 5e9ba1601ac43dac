// Package deps holds no code, only tests of what depends on what. One
// keeps the arrows pointing one way: cmd -> internal -> security, never
// back. A control under security/ that imported the code it guards could
// no longer be reviewed, or tested, on its own. The other keeps the
// modules only tests use (chromedp, the MCP go-sdk, go-internal) out of
// the release binaries.
package deps
