// Command workflowcheck proves the order of the release workflow:
//
//	go run ./scripts/release/workflowcheck [-workflow .github/workflows/release.yml] [-goreleaser .goreleaser.yaml]
//
// It checks that the Homebrew cask and the Scoop manifest are pushed only
// by the package-managers job, which needs publish (itself after every
// attestation and the provenance), is skipped for pre-release tags, and
// alone holds the tap and bucket tokens through a protected environment;
// that the MCP Registry entry (scripts/release/registry.sh) is published
// by that job alone, after the public release is verified and after the
// cask and the Scoop manifest are pushed;
// that GoReleaser never pushes them itself (skip_upload: true); that a
// concurrency group serialises releases; and that nothing is built before
// the CI checks pass on the tagged commit.
//
// It reads the workflow with a small reader for the block-style YAML that
// GitHub workflows are written in (the standard library has no YAML, and
// the module takes no dependency for one check). The reader refuses what it
// does not understand (tabs, anchors, flow mappings, a job not indented by
// two spaces) instead of guessing.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

func main() {
	workflow := flag.String("workflow", ".github/workflows/release.yml", "release workflow")
	goreleaser := flag.String("goreleaser", ".goreleaser.yaml", "GoReleaser configuration")
	flag.Parse()
	wf, err := os.ReadFile(*workflow)
	if err == nil {
		var gr []byte
		gr, err = os.ReadFile(*goreleaser)
		if err == nil {
			err = check(string(wf), string(gr))
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "workflowcheck: error: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("workflowcheck: OK: package-managers needs publish, skips pre-releases, alone holds the tap and bucket tokens and alone lists the release in the MCP Registry, last; releases are serialised and gated on ci.yml")
}

// job is what the checks need from one job.
type job struct {
	name        string
	needs       []string
	ifCond      string
	environment string
	uses        string
	body        string // the job's lines, for token searches
}

// workflow is a parsed workflow: its jobs and its top-level keys.
type workflow struct {
	top  map[string]string // top-level key -> its block (indented lines)
	jobs map[string]*job
}

var (
	topKey   = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):(.*)$`)
	jobKey   = regexp.MustCompile(`^  ([A-Za-z_][A-Za-z0-9_-]*):\s*(#.*)?$`)
	jobField = regexp.MustCompile(`^    ([A-Za-z_][A-Za-z0-9_-]*):\s*(.*)$`)
	listItem = regexp.MustCompile(`^      - ([A-Za-z0-9_-]+)\s*(#.*)?$`)
)

func parse(text string) (*workflow, error) {
	w := &workflow{top: map[string]string{}, jobs: map[string]*job{}}
	lines := strings.Split(text, "\n")
	var cur string // current top-level key
	var j *job
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		if strings.Contains(line, "\t") {
			return nil, fmt.Errorf("line %d: a tab; the reader only understands space indentation", i+1)
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if m := topKey.FindStringSubmatch(line); m != nil {
			cur = m[1]
			w.top[cur] = strings.TrimSpace(m[2])
			j = nil
			continue
		}
		if strings.HasPrefix(trimmed, "&") || strings.Contains(line, ": &") || strings.Contains(line, ": *") || strings.HasPrefix(trimmed, "<<:") {
			return nil, fmt.Errorf("line %d: a YAML anchor, alias or merge key; the reader does not follow them", i+1)
		}
		w.top[cur] += "\n" + line
		if cur != "jobs" {
			continue
		}
		if m := jobKey.FindStringSubmatch(line); m != nil {
			j = &job{name: m[1]}
			if _, dup := w.jobs[j.name]; dup {
				return nil, fmt.Errorf("line %d: job %s defined twice", i+1, j.name)
			}
			w.jobs[j.name] = j
			continue
		}
		if j == nil {
			return nil, fmt.Errorf("line %d: under jobs:, want a job name indented by two spaces", i+1)
		}
		j.body += line + "\n"
		m := jobField.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		value := strings.TrimSpace(stripComment(m[2]))
		switch m[1] {
		case "needs":
			switch {
			case value == "":
				for i+1 < len(lines) {
					item := listItem.FindStringSubmatch(lines[i+1])
					if item == nil {
						break
					}
					j.needs = append(j.needs, item[1])
					j.body += lines[i+1] + "\n"
					i++
				}
			case strings.HasPrefix(value, "["):
				if !strings.HasSuffix(value, "]") {
					return nil, fmt.Errorf("line %d: needs: a flow list must close on its line", i+1)
				}
				for _, n := range strings.Split(strings.Trim(value, "[]"), ",") {
					if n = strings.TrimSpace(n); n != "" {
						j.needs = append(j.needs, n)
					}
				}
			case strings.HasPrefix(value, "{"):
				return nil, fmt.Errorf("line %d: needs: a flow mapping", i+1)
			default:
				j.needs = append(j.needs, value)
			}
		case "if":
			j.ifCond = value
		case "environment":
			if value == "" && i+1 < len(lines) {
				if n := regexp.MustCompile(`^      name:\s*(\S+)`).FindStringSubmatch(lines[i+1]); n != nil {
					value = n[1]
				}
			}
			j.environment = value
		case "uses":
			j.uses = value
		}
	}
	if len(w.jobs) == 0 {
		return nil, errors.New("no jobs found")
	}
	return w, nil
}

func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		return s[:i]
	}
	return s
}

// check applies the release-order rules to a workflow and the GoReleaser
// configuration.
func check(workflowText, goreleaserText string) error {
	w, err := parse(workflowText)
	if err != nil {
		return err
	}
	get := func(name string) (*job, error) {
		j, ok := w.jobs[name]
		if !ok {
			return nil, fmt.Errorf("the workflow has no %s job", name)
		}
		return j, nil
	}
	pm, err := get("package-managers")
	if err != nil {
		return err
	}
	publish, err := get("publish")
	if err != nil {
		return err
	}
	gr, err := get("goreleaser")
	if err != nil {
		return err
	}
	checks, err := get("checks")
	if err != nil {
		return err
	}
	if !slices.Contains(pm.needs, "publish") {
		return fmt.Errorf("package-managers needs %q, want publish among them: the cask and the scoop manifest are pushed only after the release is public", pm.needs)
	}
	for _, want := range []string{"goreleaser", "attest", "attest-sbom", "provenance"} {
		if !slices.Contains(publish.needs, want) {
			return fmt.Errorf("publish needs %q, want %s among them: a release is published only once verified and attested", publish.needs, want)
		}
	}
	if !regexp.MustCompile(`needs\.goreleaser\.outputs\.prerelease\s*==\s*'false'`).MatchString(pm.ifCond) {
		return fmt.Errorf("package-managers runs if %q, want needs.goreleaser.outputs.prerelease == 'false': never push a pre-release", pm.ifCond)
	}
	if pm.environment != "package-managers" {
		return fmt.Errorf("package-managers uses environment %q, want the protected environment package-managers", pm.environment)
	}
	for name, j := range w.jobs {
		for _, secret := range []string{"HOMEBREW_TAP_GITHUB_TOKEN", "SCOOP_BUCKET_GITHUB_TOKEN"} {
			if name != "package-managers" && strings.Contains(j.body, secret) {
				return fmt.Errorf("job %s mentions %s; only package-managers may hold the tap and bucket tokens", name, secret)
			}
			if name == "package-managers" && !strings.Contains(j.body, "secrets."+secret) {
				return fmt.Errorf("package-managers does not take %s from its environment's secrets", secret)
			}
		}
	}
	// The MCP Registry: only package-managers runs registry.sh, and only
	// after it verified the public release and pushed the cask and the
	// Scoop manifest (steps run in the order written).
	const registryStep = "scripts/release/registry.sh"
	for name, j := range w.jobs {
		if name != "package-managers" && (strings.Contains(j.body, registryStep) || strings.Contains(j.body, "mcp-publisher")) {
			return fmt.Errorf("job %s publishes to the MCP Registry; only package-managers may, after the release is public", name)
		}
	}
	reg := strings.Index(pm.body, registryStep)
	if reg < 0 {
		return fmt.Errorf("package-managers does not run %s: the release is not listed in the MCP Registry", registryStep)
	}
	for _, before := range []string{"stitchslop-verify", "scripts/release/package-managers.sh"} {
		if i := strings.Index(pm.body, before); i < 0 || i > reg {
			return fmt.Errorf("package-managers runs %s before %s: the registry is told last, once the public release is verified and the cask and scoop are pushed", registryStep, before)
		}
	}
	if !regexp.MustCompile(`(?m)^\s+id-token:\s*write`).MatchString(pm.body) {
		return errors.New("package-managers has no id-token: write: mcp-publisher logs in with the job's GitHub OIDC token")
	}
	if !slices.Contains(gr.needs, "checks") {
		return fmt.Errorf("goreleaser needs %q, want checks: nothing is built before CI passes on the tagged commit", gr.needs)
	}
	if checks.uses != "./.github/workflows/ci.yml" {
		return fmt.Errorf("checks uses %q, want ./.github/workflows/ci.yml", checks.uses)
	}
	conc, ok := w.top["concurrency"]
	if !ok || !strings.Contains(conc, "group:") || !regexp.MustCompile(`cancel-in-progress:\s*false`).MatchString(conc) {
		return errors.New("the workflow has no top-level concurrency group with cancel-in-progress: false; two tags could race")
	}
	// GoReleaser itself must never push: exactly the cask and the scoop
	// entries say skip_upload: true, and no token is configured.
	if n := len(regexp.MustCompile(`(?m)^\s+skip_upload:\s*true\s*$`).FindAllString(goreleaserText, -1)); n != 2 {
		return fmt.Errorf(".goreleaser.yaml has %d skip_upload: true, want 2 (homebrew_casks and scoops)", n)
	}
	if regexp.MustCompile(`(?m)^\s+token:`).MatchString(goreleaserText) {
		return errors.New(".goreleaser.yaml configures a repository token; the tap and bucket are pushed by the workflow, not GoReleaser")
	}
	return nil
}
