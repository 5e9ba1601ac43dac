package main

import (
	"errors"
	"fmt"
)

// Exit codes. Each failure class has its own code so that scripts (and the
// Stitch Slop page's instructions) can tell a forged release from a
// corrupted download. Keep this table, usageText and
// docs/release.md ("Exit codes") in step.
const (
	exitOK               = 0  // checksums.txt authentic and every artifact matches
	exitSignatureInvalid = 1  // bundle does not verify: signature, log entry, certificate chain, timestamps, malformed bundle or checksums.txt
	exitIdentityMismatch = 2  // signature is valid but was not made by the release workflow on a tag
	exitNotListed        = 3  // an artifact's name is not in checksums.txt
	exitChecksumMismatch = 4  // an artifact's SHA-256 differs from checksums.txt
	exitMissingFile      = 5  // an artifact, checksums.txt, its bundle, the trusted root or the key cannot be read
	exitBadTrust         = 6  // --trusted-root or --key is not a usable trusted root or public key
	exitUsage            = 64 // bad flags or arguments (BSD sysexits EX_USAGE)
	exitInterrupted      = 130
)

// errHelp is returned by run after --help printed the usage to stdout.
var errHelp = errors.New("help requested")

// verifyError carries the exit code and the hint lines for one failure.
// Messages never include file contents: a downloaded file is untrusted bytes.
type verifyError struct {
	code  int
	msg   string
	hints []string
}

func (e *verifyError) Error() string { return e.msg }

func newError(code int, hints []string, format string, args ...any) *verifyError {
	return &verifyError{code: code, msg: fmt.Sprintf(format, args...), hints: hints}
}
