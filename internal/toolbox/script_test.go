package toolbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The command line as its user sees it: each testdata/script/*.txtar runs
// stitchslop (this test binary, re-run as Main) under testscript and
// asserts its stdout, stderr, exit status and files. Besides testscript's
// own commands, a script may say
//
//	exits N stitchslop ARGS...
//
// which runs the command and fails unless it exits with status N (! exec
// only knows zero from non-zero; the CLI's exit codes are part of its
// contract).

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"stitchslop": func() {
			os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

func TestScript(t *testing.T) {
	if files, _ := filepath.Glob("testdata/script/*.txtar"); len(files) == 0 {
		t.Fatal("no scripts in testdata/script")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exits,
		},
	})
}

// exits is the script command "exits N PROG ARGS...".
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit status", args[0])
	}
	got := 0
	var ee *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
