// Package exitcode is the one table of both programs' exit codes
// (protocol.md §4.4): everything that exits, or documents an exit, names
// them from here.
package exitcode

const (
	OK = 0
	// Failed: a shell verb refused or failed; its JSON says ok:false.
	Failed = 1
	// NoCredential: the bridge has nothing to authenticate a tab with, or
	// no usable config dir.
	NoCredential = 1
	// CannotBind: the bridge finds no port it may listen on.
	CannotBind = 2
	// NoBridge: no bridge to talk to (none, a stale session file, or
	// several and no --port).
	NoBridge = 3
	// Interrupted: a verb stopped by a signal (128 + SIGINT) before the
	// bridge answered; the call may still run in the tab.
	Interrupted = 130
	// Usage: a mistake on the command line, or a value that cannot be
	// right, such as a placeholder token.
	Usage = 64
)
