// Package sums reads a release's checksums.txt, for the release tools
// that check a release against it (scripts/release/manifest,
// scripts/release/mcpb).
package sums

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
)

// MaxFile bounds how much of checksums.txt is read: a release lists a few
// dozen files, some 100 bytes a line.
const MaxFile = 1 << 20

// line is one "<sha256>  <name>" line, as sha256sum writes it; a name is
// a bare file name.
var line = regexp.MustCompile(`^([0-9a-f]{64})  ([^/\\]+)$`)

// Read returns path's checksums, by file name. A line of another shape, a
// name listed twice and a file with no line are errors.
func Read(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(io.LimitReader(f, MaxFile))
	for n := 1; sc.Scan(); n++ {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("%s line %d: not \"<sha256>  <name>\"", path, n)
		}
		if _, dup := sums[m[2]]; dup {
			return nil, fmt.Errorf("%s line %d: %s listed twice", path, n, m[2])
		}
		sums[m[2]] = m[1]
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("%s is empty", path)
	}
	return sums, nil
}
