//go:build !lexcount

package gate

// lexed counts only under the lexcount tag (lex_on.go).
func lexed() {}
