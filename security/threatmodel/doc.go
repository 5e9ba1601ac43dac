// Package threatmodel holds no code: its test keeps THREAT_MODEL.md honest.
// Every threat section must name at least one test, and every test it
// names must exist somewhere in the module, so a renamed or deleted test
// cannot leave a threat unproven without CI saying so. Its citations test
// holds every "§N.N" in the repository to a heading of docs/protocol.md;
// another holds every fuzz target to a committed seed corpus.
package threatmodel
