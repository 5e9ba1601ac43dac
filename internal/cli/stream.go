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
	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// outMembers are the members saveImage writes for --out: the page's own of
// these names are dropped, image or not, so it cannot claim a file was
// saved.
var outMembers = []string{"savedTo", "savedBytes", "savedType"}

// saveImage is call --out FILE (§4.4). A top-level base64 dataUrl is
// decoded from the reply's own bytes a chunk at a time, never a second
// copy in memory, and written by security/files.Out; savedTo, savedBytes
// and savedType take its place, and a page's own are dropped.
func saveImage(env envelope.Reply, file string, overwrite bool, log *slog.Logger) (envelope.Reply, error) {
	o := env.Members()
	url := o.Get("dataUrl")
	mime, payload, ok := imageOf(url)
	if !ok {
		why := "no dataUrl"
		if url != nil {
			why = "its dataUrl is not a base64 data URL"
		}
		log.Warn("the reply carries no image ("+why+"); nothing was written", "out", file)
		return env.With(o.Without(outMembers...)), nil
	}
	abs, n, err := writeImage(file, mime, payload, overwrite)
	if err != nil {
		return envelope.Reply{}, err
	}
	log.Info(fmt.Sprintf("saved %d bytes of %s to %s", n, mime, abs)) // the logger escapes what is not printable
	o = o.Set("dataUrl", nil)
	for i, v := range []any{abs, n, mime} {
		o = o.With(outMembers[i], v) // no duplicate from the page left to shadow it
	}
	return env.With(o), nil
}

// outErr is --out failing with nothing written.
func outErr(code, msg string) *client.Error {
	return failure(code, "--out: "+msg+"; nothing was written", "")
}

// imageOf reads the reply's dataUrl in place, padding the payload to whole
// groups of four: some encoders drop the padding, and StdEncoding wants it.
func imageOf(v []byte) (mime string, payload io.Reader, ok bool) {
	mime, p, ok := envelope.DataURL(v)
	n := len(p) - bytes.Count(p, []byte("\r")) - bytes.Count(p, []byte("\n"))
	return mime, io.MultiReader(bytes.NewReader(p), strings.NewReader(strings.Repeat("=", (4-n%4)%4))), ok
}

// writeImage decodes payload into path through files.Out, and returns the
// path written and how many bytes it wrote.
func writeImage(path, mime string, payload io.Reader, overwrite bool) (string, int64, error) {
	// files.CheckOut let FILE through before the call: a file there now
	// appeared while the call ran.
	var ee *files.ExistsError
	appeared := func() error {
		return failure("file_exists", fmt.Sprintf("--out: %s appeared while the call ran; it was not replaced, and the image was not saved", ee.Path),
			"choose another FILE, or add --overwrite")
	}
	out, err := files.Out(path, overwrite)
	if errors.As(err, &ee) {
		return "", 0, appeared()
	} else if err != nil {
		return "", 0, outRefused(path, err, "nothing was written")
	}
	n, err := io.Copy(out, base64.NewDecoder(base64.StdEncoding, payload))
	var bad base64.CorruptInputError
	if errors.As(err, &bad) {
		err = outErr("bad_image", "the reply's dataUrl payload is not valid base64")
	} else if err != nil {
		err = outErr("write_failed", fmt.Sprintf("writing %s: %v", path, err))
	}
	if err != nil {
		out.Abort()
		return "", 0, err
	}
	if err := out.Commit(overwrite); errors.As(err, &ee) {
		return "", 0, appeared()
	} else if err != nil {
		return "", 0, outRefused(path, err, "nothing was written")
	}
	return out.Path(), n, nil
}
