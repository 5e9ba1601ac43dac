package cli

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// saveImage is call --out FILE (§4.4). A top-level base64 dataUrl is
// decoded from the reply's own bytes a chunk at a time, never a second
// copy in memory, and written by security/files.Out; savedTo, savedBytes
// and savedType, the shell's own (replyfiles.With), stand for it. Every
// member of the page's that bears the name of one of the shell's own is
// dropped (replyfiles.Strip), image or not, so it cannot claim a file was
// saved.
func saveImage(env envelope.Reply, file string, overwrite bool, log *slog.Logger) (envelope.Reply, error) {
	o := replyfiles.Strip(env.Members())
	url := o.Get("dataUrl")
	payload, ok := imageOf(url)
	if !ok {
		if head, _ := gate.Head(url, 5); strings.EqualFold(head, "data:") {
			if _, plain := gate.Plain(url); !plain {
				return envelope.Reply{}, outErr("bad_image", envelope.EscapedDataURL)
			}
		}
		why := "no dataUrl"
		if url != nil {
			why = "its dataUrl is not a base64 data URL"
		}
		log.Warn("the reply carries no image ("+why+"); nothing was written", "out", file)
		return env.With(o), nil
	}
	if !files.Base64(payload) {
		return envelope.Reply{}, outErr("bad_image", "the reply's dataUrl is "+files.NotBase64)
	}
	abs, n, typ, err := writeImage(file, bytes.NewReader(payload), overwrite)
	if err != nil {
		return envelope.Reply{}, err
	}
	log.Info(fmt.Sprintf("saved %d bytes of %s to %s", n, typ, abs)) // the logger escapes what is not printable
	o = o.Without("dataUrl")
	// savedType is the type the bytes written were checked to be
	// (files.Pending.Type), never the type the data URL claimed: the
	// page's words, of any length.
	o = replyfiles.With(o, replyfiles.SavedTo, abs)
	o = replyfiles.With(o, replyfiles.SavedBytes, n)
	return env.With(replyfiles.With(o, replyfiles.SavedType, typ)), nil
}

// outErr is --out failing with nothing written.
func outErr(code, msg string) *client.Error {
	return failure(code, "--out: "+msg+"; nothing was written", "")
}

// imageOf reads the reply's dataUrl in place: its payload, a piece of the
// reply. The type the data URL claims is not used: the bytes are checked
// for the type FILE names.
func imageOf(v []byte) (payload []byte, ok bool) {
	_, p, ok := envelope.DataURL(v)
	return p, ok
}

// writeImage decodes payload into path through files.Out, and returns the
// path written, how many bytes it wrote and the image type they were
// checked to be.
func writeImage(path string, payload io.Reader, overwrite bool) (string, int64, string, error) {
	// files.CheckOut let FILE through before the call: a file there now
	// appeared while the call ran.
	var ee *files.ExistsError
	appeared := func() error {
		return failure("file_exists", fmt.Sprintf("--out: %s appeared while the call ran; it was not replaced, and the image was not saved", gate.QuotePath(ee.Path)),
			"choose another FILE, or add --overwrite")
	}
	out, err := files.Out(path, overwrite)
	if errors.As(err, &ee) {
		return "", 0, "", appeared()
	} else if err != nil {
		return "", 0, "", outRefused(path, err, "nothing was written")
	}
	n, err := io.Copy(out, base64.NewDecoder(base64.StdEncoding, payload))
	if err != nil {
		err = outErr("write_failed", fmt.Sprintf("writing %s: %v", path, err))
	}
	if err != nil {
		out.Abort()
		return "", 0, "", err
	}
	if err := out.Commit(overwrite); errors.As(err, &ee) {
		return "", 0, "", appeared()
	} else if err != nil {
		return "", 0, "", outRefused(path, err, "nothing was written")
	}
	return out.Path(), n, out.Type(), nil
}
