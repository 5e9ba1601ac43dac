package toolbox

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/stitchslop/stitchslop-bridge/internal/doctor"
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
	r := doctor.Run(ctx, doctor.Options{ConfigDir: dir, Ports: ports})
	if a.Has("json") {
		b, err := json.Marshal(r)
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
