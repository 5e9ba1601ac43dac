package ui

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestEveryLineHasThePrefix(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	log.Info("listening", "port", 8787)
	log.Warn("loose mode", "path", "/a b")
	log.Error(fmt.Errorf("binding: %w", errors.Join(errors.New("first"), errors.New("second"))).Error())
	Hint(log, "try again")
	want := []string{
		"stitchslop-bridge: listening port=8787",
		`stitchslop-bridge: warning: loose mode path="/a b"`,
		"stitchslop-bridge: error: binding: first; second",
		"stitchslop-bridge: hint: try again",
	}
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
