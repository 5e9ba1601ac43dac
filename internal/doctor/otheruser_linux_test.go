package doctor

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// helperEnv makes the test binary a listener instead of running tests: it
// listens on a free loopback port, prints it, and holds it until stdin
// closes. TestOtherUserListener runs it as another user.
const helperEnv = "STITCHSLOP_DOCTOR_TEST_LISTENER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// nobody is the other user (the overflow uid), as in e2e/otheruser_test.go.
const nobody = 65534

// A real listener of another user (THREAT_MODEL T10) on a port the tab
// tries: the unfaked lookup names its uid. Needs root, to run a process
// as nobody.
func TestOtherUserListener(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a process as another user (uid 65534)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// go test's build directory is not readable by nobody: copy the
	// binary into one that is.
	dir, err := os.MkdirTemp("", "stitchslop-doctor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "listener")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the other user's listener: %v", err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	port, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("the other user's listener did not start: %q, %v", line, err)
	}
	r := run(t, configDir(t), port)
	if r.Healthy {
		t.Errorf("Run(another user's listener).Healthy = true, want false")
	}
	if f := must(t, r, "port", Problem, addr(port)); !strings.Contains(f.Message, "another user's process (uid 65534)") {
		t.Errorf("finding = %+v, want another user's process, uid 65534", f)
	}
}
