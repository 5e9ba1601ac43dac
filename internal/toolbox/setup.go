package toolbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// runSetup is `setup [CLIENT]... [--shell S] [--origin URL] [--json]`: how
// to register stitchslop-bridge, the one beside this program
// (bridgeBeside), with each agent client (internal/setup). It
// changes nothing. The text is for a person, so it goes to stderr; --json
// puts one document on stdout instead.
func runSetup(ctx context.Context, a args, stdout io.Writer, log *slog.Logger) int {
	c := lookup("setup")
	clients := a.Pos()[1:]
	for _, name := range clients {
		if name != "all" && !slices.Contains(setup.Clients, name) {
			return mistake(log, stdout, c, a, fmt.Sprintf("setup: unknown client %q (want %s)", clipArg(name), joinOr(setupArgs())), "")
		}
	}
	o := setup.Options{Clients: clients}
	if s, ok := a.Flag("shell"); ok {
		sh := setup.Shell(s)
		if !slices.Contains([]setup.Shell{setup.Posix, setup.PowerShell, setup.Cmd}, sh) {
			return mistake(log, stdout, c, a, fmt.Sprintf("setup --shell %q: want posix, powershell or cmd", clipArg(s)), "")
		}
		o.Shells = []setup.Shell{sh}
	}
	if s, ok := a.Flag("origin"); ok {
		site, err := origin.Parse(s)
		if err != nil {
			return mistake(log, stdout, c, a, "--origin: "+err.Error(), "")
		}
		o.Origin = site
	}
	bin, err := bridgeBeside()
	if err != nil {
		return setupFailed(log, stdout, a, fmt.Errorf("setup: %w", err))
	}
	o.Binary = bin
	plans, err := setup.Build(o)
	if err != nil {
		return setupFailed(log, stdout, a, err)
	}
	if a.Has("json") {
		err = setup.WriteJSON(stdout, plans)
	} else if err = setup.WriteText(stderrOf(ctx), plans); err == nil {
		// The two programs, by name: the bridge each line above starts,
		// and this one, whose listen the bridge's greeting hands over.
		self, _ := executable()
		cwd, _ := os.Getwd()
		if l, ok := setup.LastingBinary(bin, cwd); ok {
			bin = l.Path
		}
		if setup.GoRunBinary(self) {
			self = "go run ./cmd/stitchslop (build it beside the bridge to keep it: go build -o " + filepath.Join(filepath.Dir(bin), "stitchslop") + " ./cmd/stitchslop)"
		}
		_, err = fmt.Fprintf(stderrOf(ctx), "\nThe bridge an agent starts: %s\nstitchslop, the tools you run by hand (its listen is the voice listener the bridge hands an agent): %s\n", bin, self)
	}
	if err != nil {
		log.Error("setup: " + err.Error())
		return 1
	}
	return 0
}

// setupFailed reports what kept setup from answering: exit 1, and with
// --json a failure document on stdout.
func setupFailed(log *slog.Logger, stdout io.Writer, a args, err error) int {
	log.Error(err.Error())
	if a.Has("json") {
		stdout.Write(append(envelope.Bridge("failed", err.Error()), '\n'))
	}
	return 1
}

// setupArgs are the words setup takes: each client, and all.
func setupArgs() []string {
	return append(slices.Clone(setup.Clients), "all")
}

// joinOr joins words as a sentence does: "a or b", "a, b or c".
func joinOr(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
