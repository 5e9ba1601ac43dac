package main

import (
	"os"
	"strings"
	"testing"
)

func readRepo(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile("../../../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReleaseWorkflow: the committed workflow and configuration pass, and
// each broken variant fails with the rule it breaks.
func TestReleaseWorkflow(t *testing.T) {
	wf := readRepo(t, ".github/workflows/release.yml")
	gr := readRepo(t, ".goreleaser.yaml")
	if err := check(wf, gr); err != nil {
		t.Fatalf("check(release.yml, .goreleaser.yaml) = %v, want nil", err)
	}
	w, err := parse(wf)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.jobs["package-managers"].needs; strings.Join(got, ",") != "goreleaser,publish" {
		t.Errorf("parse: package-managers needs %q, want [goreleaser publish]", got)
	}

	tests := []struct {
		name     string
		old, new string // replaced once in the workflow, or in .goreleaser.yaml when inGR
		inGR     bool
		wantErr  string
	}{
		{"package-managers without publish", "needs: [goreleaser, publish]", "needs: [goreleaser]", false, "want publish among them"},
		{"package-managers as a block list without publish", "needs: [goreleaser, publish]", "needs:\n      - goreleaser\n      - attest", false, "want publish among them"},
		{"publish before provenance", "needs: [goreleaser, attest, attest-sbom, provenance]", "needs: [goreleaser, attest, attest-sbom]", false, "want provenance"},
		{"pre-releases pushed", "if: needs.goreleaser.outputs.prerelease == 'false'", "if: always()", false, "never push a pre-release"},
		{"no protected environment", "environment: package-managers", "environment: release", false, "protected environment"},
		{"token in the goreleaser job", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n          MACOS_SIGN_P12", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n          HOMEBREW_TAP_GITHUB_TOKEN: ${{ secrets.HOMEBREW_TAP_GITHUB_TOKEN }}\n          MACOS_SIGN_P12", false, "only package-managers may hold"},
		{"no concurrency", "concurrency:\n  group: release\n  cancel-in-progress: false", "", false, "concurrency"},
		{"not gated on CI", "  goreleaser:\n    needs: checks", "  goreleaser:\n    needs: []", false, "want checks"},
		{"tab", "name: release", "name:\trelease", false, "tab"},
		{"goreleaser pushes the cask", "    skip_upload: true", "    skip_upload: auto", true, "want 2"},
		{"registry from the goreleaser job", "      - name: subjects for SLSA provenance", "      - run: bash scripts/release/registry.sh \"$TAG\" dist\n      - name: subjects for SLSA provenance", false, "only package-managers may"},
		{"registry before the cask", "      - name: push the Homebrew cask and the Scoop manifest", "      - run: bash scripts/release/registry.sh \"$TAG\" \"$RUNNER_TEMP/public\"\n      - name: push the Homebrew cask and the Scoop manifest", false, "the registry is told last"},
		{"registry not listed", "        run: bash scripts/release/registry.sh \"$TAG\" \"$RUNNER_TEMP/public\"", "        run: echo skipped", false, "not listed in the MCP Registry"},
		{"no OIDC token for the registry", "      id-token: write # mcp-publisher", "      pages: write # mcp-publisher", false, "no id-token: write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, g := wf, gr
			target := &w
			if tt.inGR {
				target = &g
			}
			if !strings.Contains(*target, tt.old) {
				t.Fatalf("the file no longer contains %q: update this test", tt.old)
			}
			*target = strings.Replace(*target, tt.old, tt.new, 1)
			err := check(w, g)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("check(%s) = %v, want an error containing %q", tt.name, err, tt.wantErr)
			}
		})
	}
}
