// Package exitcode is the one table of the binary's exit codes: the bridge
// form's and the shell verbs' (protocol.md §4.4). Everything that exits, and
// everything that documents an exit (--help, the man page), names them from
// here.
package exitcode

const (
	OK = 0
	// Failed is a shell verb's refusal or failed command: the JSON it
	// printed says ok:false.
	Failed = 1
	// NoCredential is the bridge with nothing to authenticate a tab with,
	// or an unusable config dir.
	NoCredential = 1
	// CannotBind is the bridge finding no port it may listen on.
	CannotBind = 2
	// NoBridge is a shell verb with no bridge to talk to: none running, a
	// stale session file, or several bridges and no --port.
	NoBridge = 3
	// Interrupted is a shell verb stopped by Ctrl-C (or another signal)
	// before the bridge answered: 128 + SIGINT, as a shell reports a
	// process SIGINT killed. A call may still run in the tab.
	Interrupted = 130
	// Usage is a mistake on the command line, or a value that cannot be
	// right, such as a placeholder token.
	Usage = 64
)
