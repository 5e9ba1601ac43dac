//go:build !lexcount

package envelope

// lexed counts only under the lexcount tag (lex_on.go).
func lexed() {}
