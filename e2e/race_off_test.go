//go:build !race

package e2e

// raceEnabled is true when the test binary is built with -race, so that the
// bridge under test is built the same way.
const raceEnabled = false
