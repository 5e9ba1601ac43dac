package cli

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// unpairReply is what unpair prints on stdout.
type unpairReply struct {
	OK          bool     `json:"ok"`
	Removed     []string `json:"removed"`
	PairingFile string   `json:"pairingFile"`
	SpentFile   string   `json:"spentTokensFile"`
	// SpentTokens counts the fingerprints in the spent-token file; absent
	// when it could not be read (a warning on stderr says why).
	SpentTokens *int   `json:"spentTokens,omitempty"`
	Message     string `json:"message"`
}

// unpair is `unpair ORIGIN` and `unpair --all`: it removes stored pairing
// secrets from pairing.json, under its lock, and keeps every spent-token
// fingerprint (pairing.Store.Unpair). It works on the files alone, so it
// needs no running bridge, and a running one cannot stop it.
func unpair(a args, dir string, log *slog.Logger) ([]byte, error) {
	rest, all := a.pos[1:], a.has("all")
	switch {
	case len(rest) > 1:
		return nil, usageErr("unpair takes one ORIGIN, got %d arguments", len(rest))
	case all && len(rest) == 1:
		return nil, usageErr("unpair takes an ORIGIN or --all, not both")
	case !all && len(rest) == 0:
		return nil, usageErr("unpair needs an ORIGIN, such as https://www.stitchslop.com, or --all")
	}
	var o string
	if !all {
		var err error
		if o, err = origin.Parse(rest[0]); err != nil {
			// Not echoed: a token pasted here by mistake must not be printed.
			return nil, usageErr("unpair: ORIGIN is not a site of the form https://host[:port] (no path, query or fragment)")
		}
	}
	store := pairing.New(dir, log)
	reply := unpairReply{OK: true, Removed: []string{}, PairingFile: store.Path(), SpentFile: store.LedgerPath()}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		reply.Message = "nothing to remove: there is no config directory at " + dir
		return gate.Marshal(reply)
	}
	if err := fileperm.EnsureDir(dir, func(msg string) { log.Warn(msg) }); err != nil {
		return nil, err
	}
	var res pairing.Unpaired
	var err error
	if all {
		res, err = store.UnpairAll()
	} else {
		res, err = store.Unpair(o)
	}
	if err != nil {
		return nil, &client.Error{Exit: exitcode.Failed, Code: "failed", Msg: "unpair: " + err.Error(),
			Hint: "nothing was removed; repair or move the file named above and run unpair again"}
	}
	reply.Removed = res.Removed
	if res.Spent >= 0 {
		reply.SpentTokens = &res.Spent
	}
	switch {
	case len(res.Removed) > 0:
		reply.Message = "removed the stored pairing secrets; spent tokens stay spent. " +
			"A bridge already serving that site keeps its current tab until the tab disconnects; " +
			"the tab's next handshake with a removed secret is refused, and pairing again needs a fresh token from the Stitch Slop agent panel"
	case all:
		reply.Message = "nothing to remove: no stored pairing in " + store.Path()
	default:
		reply.Message = "nothing to remove: no stored pairing for " + o + " in " + store.Path()
	}
	return gate.Marshal(reply)
}
