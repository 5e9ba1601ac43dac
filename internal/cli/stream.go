package cli

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// maxDataURLHead caps the "data:<mime>;base64," head of a dataUrl. A MIME
// type with its parameters is far shorter; a longer head is not taken for
// an image, and the string stays in the envelope as it came.
const maxDataURLHead = 1 << 10

// replyBuffer is the read buffer over the bridge's reply: the image passes
// through it, so memory stays this size however large the image is.
const replyBuffer = 64 << 10

// saveImage reads the bridge's reply to a call from body and returns the
// envelope to print (§4.4). A top-level dataUrl holding a base64 data URL is
// decoded as it arrives, straight into a temp file beside file, and renamed
// over file once the whole reply has been read; in the envelope, savedTo,
// savedBytes and savedType take its place. The image is never held in
// memory: only the other members are. With no image, nothing is written,
// stderr says so, and a page's own savedTo, savedBytes and savedType are
// dropped.
//
// Without overwrite, FILE must not exist (checkTargets made sure before
// the call) and is not replaced if it has appeared since: file_exists.
func saveImage(body io.Reader, file string, overwrite bool, log *slog.Logger) ([]byte, error) {
	var out *userFile
	var abs string
	create := func() (io.Writer, error) {
		var err error
		if abs, err = filepath.Abs(file); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if out, err = createUserFile(abs); err != nil {
			return nil, err
		}
		return out, nil
	}
	o, img, err := streamEnvelope(body, create)
	if err != nil {
		if out != nil {
			out.abort()
		}
		return nil, err
	}
	if img == nil {
		o = o.Without(outMembers...) // the page cannot say it was saved
	}
	switch {
	case img == nil && o.Get("dataUrl") != nil:
		log.Warn("the reply carries no image (its dataUrl is not a base64 data URL); nothing was written", "out", file)
		return json.Marshal(o)
	case img == nil:
		log.Warn("the reply carries no image (no dataUrl); nothing was written", "out", file)
		return json.Marshal(o)
	}
	if err := files.CheckOut(abs, img.mime, img.head); err != nil {
		// Never a picture in name only: a page's HTML or script is not
		// put in place as preview.png (issue 19).
		out.abort()
		return nil, &client.Error{Exit: exitcode.Failed, Code: "not_an_image",
			Msg: "--out: " + strings.TrimPrefix(err.Error(), "files: ") + "; nothing was written"}
	}
	if err := out.commit(overwrite); errors.Is(err, errExists) {
		return nil, &client.Error{Exit: exitcode.Failed, Code: "file_exists",
			Msg:  fmt.Sprintf("--out: %s appeared while the call ran; it was not replaced, and the image was not saved", abs),
			Hint: "choose another FILE, or add --overwrite"}
	} else if err != nil {
		return nil, &client.Error{Exit: exitcode.Failed, Code: "write_failed", Msg: "--out: " + err.Error()}
	}
	log.Info(fmt.Sprintf("saved %d bytes of %s to %s", img.n, printable(img.mime), abs))
	for i, v := range []any{abs, img.n, img.mime} {
		b, _ := json.Marshal(v)
		o = o.Set(outMembers[i], b) // no duplicate from the page left to shadow it
	}
	return json.Marshal(o)
}

// outMembers are the members saveImage writes for --out: the page's own of
// these names are dropped, image or not, so it cannot claim a file was
// saved.
var outMembers = []string{"savedTo", "savedBytes", "savedType"}

// savedImage describes the image streamEnvelope decoded.
type savedImage struct {
	mime string
	n    int64  // bytes written
	head []byte // the first files.SniffLen of them
}

// streamEnvelope reads one JSON object from r and returns its members in
// order, except a top-level dataUrl string that is a base64 data URL: that
// one's payload is decoded into the writer create returns, called once, and
// described by the *savedImage. Errors are *client.Error, worded for the
// person; r's own *client.Error (a bridge that stopped answering) passes
// through as it is.
func streamEnvelope(r io.Reader, create func() (io.Writer, error)) (envelope.Object, *savedImage, error) {
	p := &parser{r: bufio.NewReaderSize(r, replyBuffer)}
	o, img, err := p.object(create)
	if err != nil {
		return nil, nil, replyError(err)
	}
	return o, img, nil
}

// replyError turns what went wrong while reading the reply into an
// *client.Error.
func replyError(err error) error {
	var ce *client.Error
	var se *syntaxError
	var ce64 base64.CorruptInputError
	var we *writeError
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &se):
		return &client.Error{Exit: exitcode.Failed, Code: "bad_reply",
			Msg: "--out: the bridge's reply is not a valid JSON object (" + se.Error() + "); nothing was written"}
	case errors.As(err, &ce64):
		return &client.Error{Exit: exitcode.Failed, Code: "bad_image",
			Msg: "--out: the reply's dataUrl payload is not valid base64; nothing was written"}
	case errors.Is(err, errTwoImages):
		return &client.Error{Exit: exitcode.Failed, Code: "bad_image",
			Msg: "--out: the reply has more than one dataUrl, so which image is meant is unclear; nothing was written"}
	case errors.As(err, &we):
		return &client.Error{Exit: exitcode.Failed, Code: "write_failed", Msg: "--out: " + we.err.Error()}
	}
	return &client.Error{Exit: exitcode.Failed, Code: "read_failed", Msg: "--out: reading the bridge's reply: " + err.Error()}
}

var errTwoImages = errors.New("more than one dataUrl")

// syntaxError is a reply that is not valid JSON. It gives the offset, never
// the bytes found there.
type syntaxError struct {
	msg string
	off int64
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.off) }

// writeError is a failure to create or write the file.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// parser reads JSON from a buffered stream, counting the bytes it consumes
// so that errors can say where.
type parser struct {
	r   *bufio.Reader
	off int64
}

func (p *parser) fail(msg string) error { return &syntaxError{msg, p.off} }

// eof turns the end of the reply into a syntax error: it ended too soon.
func (p *parser) eof(err error) error {
	if err == io.EOF {
		return p.fail("the reply ends too soon")
	}
	return err
}

// next consumes one byte.
func (p *parser) next() (byte, error) {
	c, err := p.r.ReadByte()
	if err != nil {
		return 0, p.eof(err)
	}
	p.off++
	return c, nil
}

// nextNonSpace consumes JSON whitespace and then one byte.
func (p *parser) nextNonSpace() (byte, error) {
	for {
		c, err := p.next()
		if err != nil || !isSpace(c) {
			return c, err
		}
	}
}

func (p *parser) discard(n int) {
	p.r.Discard(n) // n bytes were peeked: Discard cannot fail
	p.off += int64(n)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// object reads the top-level object; see streamEnvelope.
func (p *parser) object(create func() (io.Writer, error)) (envelope.Object, *savedImage, error) {
	c, err := p.nextNonSpace()
	if err != nil {
		return nil, nil, err
	}
	if c != '{' {
		return nil, nil, p.fail("the reply does not start with {")
	}
	o := envelope.Object{}
	var img *savedImage
	dataURLs := 0
	if c, err = p.nextNonSpace(); err != nil {
		return nil, nil, err
	}
	for c != '}' { // c starts a member
		if c != '"' {
			return nil, nil, p.fail("a member name is missing")
		}
		var raw []byte
		if raw, err = p.rawString([]byte{c}); err != nil {
			return nil, nil, err
		}
		var key string
		if json.Unmarshal(raw, &key) != nil {
			return nil, nil, p.fail("a member name is not a valid string")
		}
		if c, err = p.nextNonSpace(); err != nil {
			return nil, nil, err
		}
		if c != ':' {
			return nil, nil, p.fail("a : is missing after a member name")
		}
		if c, err = p.nextNonSpace(); err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if key == "dataUrl" {
			if dataURLs++; dataURLs > 1 {
				return nil, nil, errTwoImages
			}
		}
		if key == "dataUrl" && c == '"' {
			v, img, err = p.dataURL(create)
		} else {
			v, err = p.rawValue(c)
		}
		if err != nil {
			return nil, nil, err
		}
		if v != nil {
			o = append(o, envelope.Member{Key: key, Value: v})
		}
		if c, err = p.nextNonSpace(); err != nil {
			return nil, nil, err
		}
		switch c {
		case '}':
		case ',':
			if c, err = p.nextNonSpace(); err != nil {
				return nil, nil, err
			}
			if c == '}' {
				return nil, nil, p.fail("a member is missing after a ,")
			}
		default:
			return nil, nil, p.fail("a , or } is missing after a member")
		}
	}
	// Only whitespace may follow the object.
	for {
		c, err := p.r.ReadByte()
		if err == io.EOF {
			return o, img, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if !isSpace(c) {
			return nil, nil, p.fail("data follows the JSON object")
		}
		p.off++
	}
}

// rawValue reads one JSON value whose first byte c is consumed, and returns
// it as it came, checked.
func (p *parser) rawValue(c byte) (json.RawMessage, error) {
	buf := []byte{c}
	var err error
	switch c {
	case '"':
		buf, err = p.rawString(buf)
	case '{', '[':
		for depth := 1; depth > 0 && err == nil; {
			if c, err = p.next(); err != nil {
				break
			}
			buf = append(buf, c)
			switch c {
			case '"':
				buf, err = p.rawString(buf)
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	default: // a number, true, false or null: up to the next delimiter
		for {
			b, perr := p.r.Peek(1)
			if perr != nil {
				err = p.eof(perr) // the object is not closed yet
				break
			}
			if isSpace(b[0]) || b[0] == ',' || b[0] == '}' || b[0] == ']' {
				break
			}
			p.discard(1)
			buf = append(buf, b[0])
		}
	}
	if err != nil {
		return nil, err
	}
	if !json.Valid(buf) {
		return nil, p.fail("a member's value is not valid JSON")
	}
	return buf, nil
}

// rawString appends to buf the rest of a JSON string whose opening quote
// is consumed, up to and including its closing quote, as it came. The
// caller checks it.
func (p *parser) rawString(buf []byte) ([]byte, error) {
	for {
		c, err := p.next()
		if err != nil {
			return nil, err
		}
		buf = append(buf, c)
		switch c {
		case '"':
			return buf, nil
		case '\\':
			if c, err = p.next(); err != nil {
				return nil, err
			}
			buf = append(buf, c)
		}
	}
}

// dataURL reads the string value of the top-level dataUrl, its opening
// quote consumed. If it is a base64 data URL, the payload is decoded into
// the writer create returns as it arrives, and the image is described;
// otherwise the string is returned as it came, to stay in the envelope.
func (p *parser) dataURL(create func() (io.Writer, error)) (json.RawMessage, *savedImage, error) {
	s := &stringReader{p: p, raw: []byte{'"'}}
	var head []byte
	one := make([]byte, 1)
	for {
		_, err := s.Read(one)
		if err == io.EOF {
			return s.raw, nil, nil // the string ended before a ','
		}
		if err != nil {
			return nil, nil, err
		}
		head = append(head, one[0])
		if one[0] == ',' {
			break
		}
		if n := min(len(head), 5); len(head) >= maxDataURLHead || !strings.EqualFold(string(head[:n]), "data:"[:n]) {
			return s.rest()
		}
	}
	// The head as encoding/json reads it, invalid UTF-8 included.
	var h string
	if json.Unmarshal(append(append([]byte(nil), s.raw...), '"'), &h) != nil {
		return nil, nil, p.fail("the dataUrl is not a valid string")
	}
	mime, _, ok := files.SplitDataURL(h)
	if !ok {
		return s.rest()
	}
	s.raw = nil // the payload is not kept
	w, err := create()
	if err != nil {
		return nil, nil, &writeError{err}
	}
	cw := &countingWriter{w: w}
	_, err = io.Copy(cw, base64.NewDecoder(base64.StdEncoding, &padded{r: s}))
	switch {
	case cw.err != nil:
		return nil, nil, &writeError{cw.err}
	case err != nil:
		return nil, nil, err
	}
	return nil, &savedImage{mime: mime, n: cw.n, head: cw.head}, nil
}

// stringReader reads the contents of a JSON string, its opening quote
// consumed, with its escapes undone as encoding/json undoes them, and ends
// at the closing quote. While raw is not nil, the bytes consumed are
// appended to it as they came.
type stringReader struct {
	p       *parser
	raw     []byte
	pending []byte // the rest of an escaped character
	buf     [utf8.UTFMax]byte
	done    bool
	err     error // to return on the next Read
}

func (s *stringReader) keep(b ...byte) {
	if s.raw != nil {
		s.raw = append(s.raw, b...)
	}
}

func (s *stringReader) read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if len(s.pending) > 0 {
			k := copy(b[n:], s.pending)
			s.pending = s.pending[k:]
			n += k
			continue
		}
		if s.done {
			break
		}
		// The common case: a run of plain bytes, copied from the buffer.
		if _, err := s.p.r.Peek(1); err != nil {
			return n, s.p.eof(err)
		}
		buffered, _ := s.p.r.Peek(min(s.p.r.Buffered(), len(b)-n))
		k := 0
		for k < len(buffered) && buffered[k] != '"' && buffered[k] != '\\' && buffered[k] >= 0x20 {
			k++
		}
		if k > 0 {
			copy(b[n:], buffered[:k])
			s.keep(buffered[:k]...)
			s.p.discard(k)
			n += k
			continue
		}
		c, _ := s.p.next() // peeked above
		s.keep(c)
		switch {
		case c == '"':
			s.done = true
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return n, err
			}
			s.pending = utf8.AppendRune(s.buf[:0], r)
		default:
			return n, s.p.fail("a string holds a control character")
		}
	}
	if n == 0 && s.done {
		return 0, io.EOF
	}
	return n, nil
}

// Read gives the bytes it has and keeps an error for the next call, so
// that no reader above has to handle both at once.
func (s *stringReader) Read(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.read(b)
	if n > 0 && err != nil {
		s.err, err = err, nil
	}
	return n, err
}

// escape reads an escape, its backslash consumed.
func (s *stringReader) escape() (rune, error) {
	c, err := s.p.next()
	if err != nil {
		return 0, err
	}
	s.keep(c)
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
	default:
		return 0, s.p.fail("a string holds an invalid escape")
	}
	var hex [4]byte
	for i := range hex {
		if hex[i], err = s.p.next(); err != nil {
			return 0, err
		}
	}
	s.keep(hex[:]...)
	r, ok := hex4(hex[:])
	if !ok {
		return 0, s.p.fail(`a string holds an invalid \u escape`)
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	// A surrogate pair is two escapes; a lone half is U+FFFD, and what
	// follows it is read on its own, as encoding/json does.
	next, err := s.p.r.Peek(6)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return 0, err
	}
	if len(next) == 6 && next[0] == '\\' && next[1] == 'u' {
		if r2, ok := hex4(next[2:]); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				s.keep(next...)
				s.p.discard(6)
				return dec, nil
			}
		}
	}
	return utf8.RuneError, nil
}

func hex4(b []byte) (rune, bool) {
	v, err := strconv.ParseUint(string(b), 16, 16)
	return rune(v), err == nil
}

// rest reads the rest of the string, which is not an image after all, and
// returns it whole as it came.
func (s *stringReader) rest() (json.RawMessage, *savedImage, error) {
	if _, err := io.Copy(io.Discard, s); err != nil {
		return nil, nil, err
	}
	return s.raw, nil, nil
}

// padded passes base64 text on without line breaks, padded to a whole
// number of four-character groups when it ends: some encoders drop the
// padding, and StdEncoding wants it. The decoder would skip '\r' and '\n'
// itself, but it loses a read error that comes with a chunk of nothing else.
type padded struct {
	r     io.Reader
	n     int // characters passed on
	pad   int
	ended bool
}

func (f *padded) Read(b []byte) (int, error) {
	if f.ended {
		if f.pad == 0 {
			return 0, io.EOF
		}
		k := copy(b, strings.Repeat("=", f.pad))
		f.pad -= k
		return k, nil
	}
	k, err := f.r.Read(b)
	kept := 0
	for _, c := range b[:k] {
		if c != '\r' && c != '\n' {
			b[kept] = c
			kept++
		}
	}
	f.n += kept
	if err == io.EOF {
		f.ended, f.pad, err = true, (4-f.n%4)%4, nil
	}
	return kept, err
}

// countingWriter counts what it writes, and keeps its error apart from the
// reader's.
type countingWriter struct {
	w    io.Writer
	n    int64
	err  error
	head []byte // the first files.SniffLen bytes written
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if len(c.head) < files.SniffLen {
		c.head = append(c.head, b[:min(len(b), files.SniffLen-len(c.head))]...)
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	return n, err
}

// printable is s as it may be written to the terminal: quoted unless it is
// plain printable text.
func printable(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// userFile is FILE being written: a temp file beside it (files.Pending,
// the one writer that replaces files), put in place only once whole, so a
// failure leaves any earlier file as it was.
type userFile struct {
	path string
	p    *files.Pending
}

// createUserFile starts writing path. It refuses to write through a symlink
// or over anything that is not a regular file. The temp file asks for 0666
// and lets the umask decide, as any program writing a user's file does.
func createUserFile(path string) (*userFile, error) {
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s exists and is not a regular file; nothing was written", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	p, err := files.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write into %s: %v", filepath.Dir(path), err)
	}
	return &userFile{path: path, p: p}, nil
}

func (u *userFile) Write(b []byte) (int, error) {
	n, err := u.p.Write(b)
	if err != nil {
		err = fmt.Errorf("writing %s: %v; nothing was written", u.path, err)
	}
	return n, err
}

// errExists is FILE found in place when it is to be created.
var errExists = errors.New("the file exists")

// commit puts the file in place. With overwrite it is renamed over FILE.
// Without, it appears only if nothing is there, a symlink included, so
// nothing is replaced whatever appeared since the check before the call
// (files.Pending.Commit).
func (u *userFile) commit(overwrite bool) error {
	err := u.p.Commit(overwrite)
	if !overwrite && errors.Is(err, fs.ErrExist) {
		return errExists
	}
	if err != nil {
		return fmt.Errorf("writing %s: %v", u.path, err)
	}
	return nil
}

// abort drops the temp file; FILE is left as it was.
func (u *userFile) abort() { u.p.Abort() }
