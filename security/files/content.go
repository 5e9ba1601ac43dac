package files

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// content is a file's bytes as Name checks them and save writes them,
// read as often as each needs: the bytes themselves, or (b64) a standard
// base64 payload (Base64) decoded a chunk at a time as it is read, so a
// file a reply carries is never a second copy of the reply in memory
// (issue 34: saving a reply costs at most twice its size).
type content struct {
	data []byte
	b64  bool
}

func (c content) open() io.Reader {
	if c.b64 {
		return base64.NewDecoder(base64.StdEncoding, bytes.NewReader(c.data))
	}
	return bytes.NewReader(c.data)
}

// head is the first SniffLen bytes, or all when fewer.
func (c content) head() []byte {
	if !c.b64 {
		return c.data[:min(SniffLen, len(c.data))]
	}
	h := make([]byte, SniffLen)
	n, _ := io.ReadFull(c.open(), h)
	return h[:n]
}

// readChunk is how much of a file the checks below hold at once.
const readChunk = 32 << 10

// text reports whether the bytes are UTF-8 without a NUL, a chunk at a
// time: a character cut by a chunk's end is carried into the next.
func (c content) text() bool {
	r := c.open()
	buf := make([]byte, readChunk+utf8.UTFMax)
	carry := 0
	for {
		n, err := io.ReadFull(r, buf[carry:carry+readChunk])
		p := buf[:carry+n]
		if bytes.IndexByte(p, 0) >= 0 {
			return false
		}
		// Hold back a last character that is only begun, unless the file
		// ends here.
		keep := 0
		if err == nil {
			for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
				if utf8.RuneStart(p[i]) {
					if !utf8.FullRune(p[i:]) {
						keep = len(p) - i
					}
					break
				}
			}
		}
		if !utf8.Valid(p[:len(p)-keep]) {
			return false
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return true
		case err != nil:
			return false
		}
		carry = copy(buf, p[len(p)-keep:])
	}
}

// json reports whether the bytes are one JSON value, as encoding/json's
// Valid takes it (a name may come twice, a string may hold invalid
// UTF-8), read as a stream: only a token at a time is held.
func (c content) json() bool {
	d := jsontext.NewDecoder(c.open(), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if d.SkipValue() != nil {
		return false
	}
	_, err := d.ReadToken()
	return errors.Is(err, io.EOF)
}

// svg reports whether the bytes are well-formed XML whose root is svg.
func (c content) svg() bool {
	d := xml.NewDecoder(c.open())
	root := ""
	for {
		t, err := d.Token()
		if err == io.EOF {
			return root == "svg"
		} else if err != nil {
			return false
		}
		if se, ok := t.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}
