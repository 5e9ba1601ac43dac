package toolbox

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/doctor"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// runDoctor is `doctor [--port N[,N...]] [--config-dir DIR] [--json]`: it
// checks this machine as protocol.md §5 asks (internal/doctor). A finding a
// line on stderr; --json puts the report, one document, on stdout instead.
// Exit 0 when healthy, 1 when not.
func runDoctor(ctx context.Context, a args, dir string, stdout io.Writer, log *slog.Logger) int {
	c := lookup("doctor")
	if len(a.Pos()) > 1 {
		return mistake(log, stdout, c, a, "doctor takes no arguments", "")
	}
	ports, err := portsFlag(a)
	if err != nil {
		return mistake(log, stdout, c, a, err.Error(), "")
	}
	tool := version.SelfOf(Program.Name, time.Minute)
	r := doctor.Run(ctx, doctor.Options{ConfigDir: dir, Ports: ports, Tool: &tool,
		Bridge: func(wait time.Duration) version.Identity { return bridgeIdentity(ctx, wait) }})
	if a.Has("json") {
		b, err := gate.Marshal(r)
		if err != nil {
			log.Error("doctor: " + err.Error())
			return 1
		}
		emitDoc(stdout, b) // through the gate: other bridges' answers are in it
	} else if err := r.WriteText(stderrOf(ctx)); err != nil {
		log.Error("doctor: " + err.Error())
		return 1
	}
	if !r.Healthy {
		return 1
	}
	return 0
}

// bridgeIdentity is which stitchslop-bridge doctor speaks for, the one
// beside this program (setup registers it), as it says itself with
// version --json. Only its sha256 is compared with a running bridge's.
func bridgeIdentity(ctx context.Context, wait time.Duration) version.Identity {
	id := version.Identity{Name: "stitchslop-bridge"}
	bin, err := bridgeBeside()
	if err != nil {
		id.SHA256Error = err.Error()
		return id
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version", "--json").Output()
	if err != nil {
		id.SHA256Error = "no stitchslop-bridge beside this program answers version --json (" + bin + "): " + err.Error()
		return id
	}
	if err := json.Unmarshal(out, &id); err != nil || id.Name != "stitchslop-bridge" {
		return version.Identity{Name: "stitchslop-bridge", SHA256Error: bin + " version --json did not name a stitchslop-bridge"}
	}
	return id
}
