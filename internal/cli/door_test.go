package cli

import (
	"log/slog"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// The shell reads a bridge's answer at its door and hands the Reply on;
// these run a reply's bytes the way verb does, for tests that start from
// bytes.

func saveImageBytes(reply []byte, path string, overwrite bool, log *slog.Logger) ([]byte, error) {
	r, err := door(reply, nil)
	if err != nil {
		return nil, err
	}
	out, err := saveImage(r, path, overwrite, log)
	return shown(out), err
}

// shown is the reply as the shell shows it, members in order, without the
// gate's cleaning: nil for the zero Reply.
func shown(r envelope.Reply) []byte {
	if r.Bytes() == nil {
		return nil
	}
	return r.Members().AppendJSON(nil)
}

func saveFilesBytes(reply []byte, dir, textFile string, overwrite bool, log *slog.Logger) ([]byte, *notSaved) {
	r, err := door(reply, nil)
	if err != nil {
		return reply, nil // never printed: emit prints only what the door let through
	}
	out, ns := saveFiles(r, dir, textFile, overwrite, log)
	return shown(out), ns
}

// parseObject is the members of b through the door.
func parseObject(b []byte) (envelope.Object, error) {
	r, err := envelope.Decode(b)
	return r.Members(), err
}
