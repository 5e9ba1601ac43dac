// Package deps holds no code, only a test that keeps the arrows pointing
// one way: cmd -> internal -> security, never back. A control under
// security/ that imported the code it guards could no longer be reviewed,
// or tested, on its own.
package deps
