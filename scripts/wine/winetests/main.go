// Command winetests reads one package's `go test` events (go tool
// test2json) from a test binary run under Wine and says what passed, what
// failed and what was skipped, with the reasons.
//
//	PKG.test.exe -test.v=test2json | go tool test2json -t -p PKG | go run ./scripts/wine/winetests [-limit NAME=REASON]... PKG
//
// -limit names a Wine limitation that a probe found on this Wine
// (scripts/wine/gotest.sh runs them): a failing test whose first error is
// that limitation's own message (limitations below), the one that stopped
// it, is reported as skipped, with REASON and that error, instead of
// failed; so is a parent whose failing subtests are all such. A limitation
// no probe found is never applied.
//
// One Wine limitation is told apart from a failure by the error alone,
// which names the call Wine lacks: Wine 8 answers NtSetInformationFile's
// FileDispositionInformationEx with a status Go's os.RemoveAll does not fall
// back on, so removing a test's t.TempDir fails with "TempDir RemoveAll
// cleanup: unlinkat ...: Invalid function." after the test itself ran.
// A test whose only errors are that one (and a parent whose only failing
// subtests are such tests) counts as passed, and is listed with the
// limitation. Any other error, a panic, a timeout or a failing package
// with no failing test is a failure. Exit 0 when nothing failed.
// See docs/windows-wine.md.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

type event struct {
	Action string
	Test   string
	Output string
}

const (
	// maxLine bounds one test2json line; the longest are a test's output lines.
	maxLine = 1 << 20
	// maxNamed is how many tests a grouped skip names.
	maxNamed = 3
)

var (
	// errorLine is a line t.Errorf, t.Fatalf or t.Skip writes (file:line: ...).
	errorLine = regexp.MustCompile(`^\s+[\w.-]+\.go:[0-9]+: (.*)$`)
	// removeAll is the Wine limitation above: t.TempDir's cleanup, or a
	// test's own os.RemoveAll.
	removeAll = regexp.MustCompile(`unlinkat .*: Invalid function\.\s*$`)
)

// limitations are the errors each probed Wine limitation causes, as the
// code under test words them.
var limitations = map[string]*regexp.Regexp{
	// Wine's TCP table names no owner (probe tcp-owner): the CLI will not
	// send its key to a port it cannot tie to the bridge, the bridge
	// refuses a peer it cannot attribute, and peercred says why.
	// security/peercred's live tests ask the table directly.
	"tcp-owner": regexp.MustCompile(`is not held by the bridge \(pid [0-9]+\)|whose owner could not be checked|peercred: |ListenerOwner\([0-9]+\) = \(owner unknown\)|HoldsPort\(self, [0-9]+\) = false`),
	// Wine does not keep a DACL (probe dacl-kept).
	"dacl": regexp.MustCompile(`DACL|owner-only ACL|SE_DACL_PROTECTED|protected`),
	// Wine refuses a rename over a file held open, FILE_SHARE_DELETE or
	// not (probe rename-open): the one writer's replace of a file another
	// handle reads.
	"rename-open": regexp.MustCompile(`replacing the old file: Access denied`),
}

type test struct {
	name   string
	result string // pass, fail, skip
	lines  []string
	wine   bool   // failed only on the RemoveAll limitation
	limit  string // failed only on this probed limitation
}

// limitFlags collects -limit NAME=REASON.
type limitFlags map[string]string

func (l limitFlags) String() string { return fmt.Sprint(map[string]string(l)) }
func (l limitFlags) Set(v string) error {
	name, reason, ok := strings.Cut(v, "=")
	if _, known := limitations[name]; !ok || !known {
		return fmt.Errorf("-limit %q: want NAME=REASON with NAME one of tcp-owner, dacl, rename-open", v)
	}
	l[name] = reason
	return nil
}

func main() {
	limits := limitFlags{}
	flag.Var(limits, "limit", "NAME=REASON: a Wine limitation a probe found (repeatable)")
	flag.Parse()
	pkg := "the package"
	if flag.NArg() == 1 {
		pkg = flag.Arg(0)
	}
	ok, err := run(os.Stdin, os.Stdout, pkg, limits)
	if err != nil {
		fmt.Fprintf(os.Stderr, "winetests: error: %v\n", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, pkg string, limits limitFlags) (bool, error) {
	tests := map[string]*test{}
	var order []string
	pkgResult, pkgOutput := "", []string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event: the binary's own output before test2json
			// could frame it (e.g. a crash); keep it.
			pkgOutput = append(pkgOutput, sc.Text())
			continue
		}
		if e.Test == "" {
			switch e.Action {
			case "pass", "fail", "skip":
				pkgResult = e.Action
			case "output":
				pkgOutput = append(pkgOutput, strings.TrimRight(e.Output, "\r\n"))
			}
			continue
		}
		t := tests[e.Test]
		if t == nil {
			t = &test{name: e.Test}
			tests[e.Test] = t
			order = append(order, e.Test)
		}
		switch e.Action {
		case "pass", "fail", "skip":
			t.result = e.Action
		case "output":
			t.lines = append(t.lines, strings.TrimRight(e.Output, "\r\n"))
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	// Deepest first, so a parent sees its subtests' verdicts.
	byDepth := slices.Clone(order)
	slices.SortStableFunc(byDepth, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, name := range byDepth {
		t := tests[name]
		if t.result != "fail" {
			continue
		}
		own, wineOnly := 0, true
		// first: the test's first error other than the cleanup one.
		first := ""
		limitedErrors, panicked := 0, false
		for _, l := range t.lines {
			if strings.HasPrefix(strings.TrimSpace(l), "--- ") || strings.HasPrefix(l, "=== ") {
				continue
			}
			if m := errorLine.FindStringSubmatch(l); m != nil {
				own++
				if removeAll.MatchString(l) {
					continue
				}
				wineOnly = false
				limitedErrors++
				if first == "" {
					first = l
				}
			} else if strings.HasPrefix(l, "panic:") {
				wineOnly = false
				panicked = true // a panic is never a limitation
			}
		}
		if limitedErrors > 0 && !panicked {
			for name := range limits {
				if limitations[name].MatchString(first) {
					t.limit = name
				}
			}
		}
		failedChildren := 0
		for _, c := range order {
			// Every failing descendant: a subtest named with a slash has
			// no test event for the part before it.
			if strings.HasPrefix(c, name+"/") && tests[c].result == "fail" {
				failedChildren++
				if !tests[c].wine {
					wineOnly = false
				}
				if tests[c].limit == "" && !tests[c].wine {
					limitedErrors = -1 // a descendant really failed
				}
			}
		}
		t.wine = wineOnly && (own > 0 || failedChildren > 0)
		if limitedErrors < 0 {
			t.limit = ""
		} else if t.limit == "" && !t.wine && failedChildren > 0 && own == 0 {
			// A parent failing only through limited (or cleanup-only)
			// descendants.
			for _, c := range order {
				if strings.HasPrefix(c, name+"/") && tests[c].limit != "" {
					t.limit = tests[c].limit
				}
			}
		}
	}
	var failed, wine, skipped, limited []*test
	for _, name := range order {
		t := tests[name]
		switch {
		case t.result == "fail" && t.wine:
			wine = append(wine, t)
		case t.result == "fail" && t.limit != "":
			limited = append(limited, t)
		case t.result == "fail":
			failed = append(failed, t)
		case t.result == "skip":
			skipped = append(skipped, t)
		}
	}
	ok := len(failed) == 0 && (pkgResult == "pass" || (pkgResult == "fail" && len(wine)+len(limited) > 0))
	if pkgResult == "" {
		ok = false
	}
	for _, t := range failed {
		fmt.Fprintf(out, "      FAIL %s\n", t.name)
		n := 0
		for _, l := range t.lines {
			if m := errorLine.FindStringSubmatch(l); m != nil || strings.HasPrefix(l, "panic:") {
				if n++; n <= 5 {
					fmt.Fprintf(out, "           %s\n", strings.TrimSpace(l))
				}
			}
		}
	}
	if !ok && len(failed) == 0 {
		// The package failed with no failing test: show its last words.
		fmt.Fprintf(out, "      %s failed outside any test (result %q):\n", pkg, pkgResult)
		for _, l := range pkgOutput[max(0, len(pkgOutput)-15):] {
			fmt.Fprintf(out, "           %s\n", l)
		}
	}
	// Skips grouped by reason: a table test skipping for one cause says
	// it once, with how many and which.
	byReason := map[string][]string{}
	var reasons []string
	for _, t := range skipped {
		reason := "(no reason given)"
		for _, l := range t.lines {
			if m := errorLine.FindStringSubmatch(l); m != nil {
				reason = m[1]
			}
		}
		if byReason[reason] == nil {
			reasons = append(reasons, reason)
		}
		byReason[reason] = append(byReason[reason], t.name)
	}
	for _, r := range reasons {
		names := byReason[r]
		if len(names) == 1 {
			fmt.Fprintf(out, "      skip %s: %s\n", names[0], r)
			continue
		}
		shown := names[:min(len(names), maxNamed)]
		more := ""
		if len(names) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(names)-len(shown))
		}
		fmt.Fprintf(out, "      skip %d tests (%s%s): %s\n", len(names), strings.Join(shown, " "), more, r)
	}
	for _, t := range limited {
		first := ""
		for _, l := range t.lines {
			if m := errorLine.FindStringSubmatch(l); m != nil && !removeAll.MatchString(l) {
				first = m[1]
				break
			}
		}
		if first == "" {
			first = "(through its subtests)"
		}
		fmt.Fprintf(out, "      skip %s: Wine limitation %s: %s; it reported: %.200s\n", t.name, t.limit, limits[t.limit], first)
	}
	if len(wine) > 0 {
		var top []string
		for _, t := range wine {
			if !strings.Contains(t.name, "/") {
				top = append(top, t.name)
			}
		}
		fmt.Fprintf(out, "      wine: %d tests passed but could not remove their t.TempDir (Wine limitation: os.RemoveAll's FileDispositionInformationEx delete is unsupported): %s\n",
			len(wine), strings.Join(top, " "))
	}
	fmt.Fprintf(out, "      %d tests: %d failed, %d skipped, %d skipped for a probed Wine limitation, %d passed with the RemoveAll limitation\n",
		len(order), len(failed), len(skipped), len(limited), len(wine))
	return ok, nil
}
