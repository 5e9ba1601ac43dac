//go:build !lexcount

package envelope

// lexed marks one read of an answer by the door: counted only in a build
// for the test that counts them (lex_on.go).
func lexed() {}
