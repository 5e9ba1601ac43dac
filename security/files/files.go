// Package files stands between the agent's file tools and the disk: Read
// reads a file the agent sends to the tab; Batch and Out write what the tab
// sends back, through one race-free walk (walk.go) and one writer
// (Pending). It mitigates THREAT_MODEL.md T16 (file-tools): a hostile page
// talks the agent into (a) uploading a local secret (~/.ssh/id_rsa, the
// bridge's own pairing.json) or (b) writing a file to a dangerous place or
// under a dangerous name (../../x.sh, .bashrc, a script).
//
// Against (a): a path with a hidden component, as the walk really reaches
// it through links, is refused, since secrets live in dot-folders; only
// images known by their bytes and design kinds known by extension are
// sent. Against (b): every name a Batch saves under is built, never taken
// (Name, docs/protocol.md §7.15), so no deny-list is kept; --out, the one
// name a person typed, must be a visible image name (checkName); on Unix
// folders must be the user's own; a file is put in place whole, and only over a
// regular file with overwrite.
//
// Not covered: a file of an allowed kind goes whatever it holds; a secret
// outside a dot-folder is not stopped; lookalike names are not refused; a
// process of the same user (T11) can do anything the user can.
package files

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// MaxIn is in bytes, as the reference bridge allows.
const MaxIn = 14 << 20

// Mode of a file sent to the tab.
const (
	DataURL = "dataUrl" // data:<mime>;base64,<data>
	Text    = "text"    // the file's text; UTF-8 only
)

// MaxSaved bounds the files of one reply that are saved: an export is a
// handful, and a page must not fill a folder with thousands of files.
const MaxSaved = 32

// maxName is the longest --out name checkName takes, in bytes: the limit
// of ext4, APFS and NTFS.
const maxName = 255

// images maps an image extension to the MIME type its bytes must sniff as.
var images = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp",
}

type kind struct {
	mime string
	text bool // may be sent in Text mode
}

// designs are the kinds Read sends by extension, besides images.
var designs = map[string]kind{
	".dst": binary, ".pes": binary, ".jef": binary, ".exp": binary, ".vp3": binary, // machine formats
	".inf": binary, ".col": binary, // colour files
	".svg": {"image/svg+xml", true}, ".dxf": {"image/vnd.dxf", true},
	".stitchslop": {"application/json", true}, ".json": {"application/json", true},
}

var binary = kind{"application/octet-stream", false}

const (
	readKinds = "PNG, JPEG, GIF or WebP images, or .dst .pes .jef .exp .vp3 .inf .col .svg .dxf .stitchslop .json"
	appKinds  = ".png .jpg .jpeg .gif .webp .dst .pes .jef .exp .vp3 .inf .col .svg .dxf .stitchslop .json"
	textKinds = ".svg .dxf .stitchslop .json"
)

// In is a file read for the tab.
type In struct {
	Name  string // the base name
	Mime  string
	Size  int64  // bytes on disk
	Value string // the data URL or the text
}

// Read reads path for the tab in mode (DataURL or Text; "" means DataURL).
// Errors never quote the file's content.
func Read(path, mode string) (In, error) {
	if mode == "" {
		mode = DataURL
	}
	if mode != DataURL && mode != Text {
		return In{}, errors.New(`files: mode must be "dataUrl" or "text"`)
	}
	w, f, err := walk(path, true, false)
	if err != nil {
		return In{}, err
	}
	name := filepath.Base(w.abs)
	w.close()
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return In{}, fmt.Errorf("files: %s: %w", q(path), cause(err))
	}
	if fi.Size() > MaxIn {
		return In{}, fmt.Errorf("files: %s is %d bytes, over the %d MB limit", q(path), fi.Size(), MaxIn>>20)
	}
	// Stat's size is not trusted: the file may grow while it is read.
	data, err := io.ReadAll(io.LimitReader(f, MaxIn+1))
	if err != nil {
		return In{}, fmt.Errorf("files: %s: %w", q(path), cause(err))
	}
	if len(data) > MaxIn {
		return In{}, fmt.Errorf("files: %s is over the %d MB limit", q(path), MaxIn>>20)
	}

	ext := strings.ToLower(filepath.Ext(name))
	var k kind
	if m := sniff(data); m != "" {
		k = kind{mime: m}
	} else if _, ok := images[ext]; ok {
		return In{}, fmt.Errorf("files: %s is named %s but its bytes are not a PNG, JPEG, GIF or WebP image", q(path), gate.Quote(ext))
	} else if k, ok = designs[ext]; !ok {
		return In{}, fmt.Errorf("files: %s is not a kind of file sent to the tab; allowed: %s", q(path), readKinds)
	}

	in := In{Name: name, Mime: k.mime, Size: int64(len(data))}
	switch {
	case mode == DataURL:
		in.Value = "data:" + k.mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	case !k.text:
		return In{}, fmt.Errorf("files: %s cannot be sent as text (only %s); send it as dataUrl", q(path), textKinds)
	case !utf8.Valid(data):
		return In{}, fmt.Errorf("files: %s is not valid UTF-8 text; send it as dataUrl", q(path))
	default:
		in.Value = string(data)
	}
	return in, nil
}

func hidden(p string) string {
	for _, part := range strings.Split(p[len(filepath.VolumeName(p)):], string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return part
		}
	}
	return ""
}

// Prepare walks dir as a Batch will, makes its missing folders and proves
// it takes a new file, so a caller refuses before anything is sent to the
// tab. Batch.Save walks it again when it writes.
func Prepare(dir string) error {
	w, _, err := walk(dir, false, true)
	if err != nil {
		return err
	}
	defer w.close()
	return w.probe()
}

// probe creates and removes a file as a Pending would, so a read-only
// folder or /proc is found out before the tab runs the command.
func (w *walked) probe() error {
	p, err := create(w.dir(), "", w.abs, nil)
	if err != nil {
		return fmt.Errorf("files: %s: a file cannot be created there: %w", q(w.abs), err)
	}
	p.Abort() // closes w.dir(), which w.close closes again, doing nothing
	return nil
}

func save(dir, name string, c content, overwrite bool) (string, int64, error) {
	w, _, err := walk(dir, false, true)
	if err != nil {
		return "", 0, err
	}
	defer w.close()
	p, err := w.create(name, overwrite, images[filepath.Ext(name)])
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(p, c.open())
	if err != nil {
		p.Abort()
		return "", 0, fmt.Errorf("files: %s: %w", q(p.path), err)
	}
	var be *BytesError
	var ee *ExistsError
	switch err := p.Commit(overwrite); {
	case err == nil:
		return p.path, n, nil
	case errors.As(err, &be), errors.As(err, &ee):
		return "", 0, err
	default:
		return "", 0, fmt.Errorf("files: %s: %w", q(p.path), err)
	}
}

// ExistsError is a file already there, not replaced without overwrite.
type ExistsError struct {
	Path string
}

func (e *ExistsError) Error() string {
	return "files: " + q(e.Path) + " already exists; it is not replaced"
}

func (e *ExistsError) Unwrap() error { return fs.ErrExist }

// BytesError is a file whose bytes are not the image its name, or the data
// URL it came in, says: no script is put in place as preview.png.
type BytesError struct {
	Want string // the MIME type the bytes had to sniff as
}

func (e *BytesError) Error() string { return "files: its bytes are not " + e.Want }

// check refuses replacing anything but a regular file, and anything at all
// without overwrite (Commit checks again as it puts the file in place).
func (w *walked) check(name string, overwrite bool) error {
	path := filepath.Join(w.path(), name)
	fi, err := w.dir().Lstat(name)
	switch {
	case err == nil && !overwrite:
		return &ExistsError{Path: path}
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("files: %s is not a regular file (a folder, a link, a FIFO or a device); it is not replaced", q(path))
	}
	return nil
}

func (w *walked) create(name string, overwrite bool, want string) (*Pending, error) {
	if err := w.check(name, overwrite); err != nil {
		return nil, err
	}
	p, err := create(w.dir(), name, filepath.Join(w.path(), name), nil)
	if err != nil {
		return nil, fmt.Errorf("files: %s: a file cannot be created there: %w", q(w.path()), err)
	}
	p.want = want
	return p, nil
}

// CheckOut refuses, before the call, an --out path Out would refuse,
// whatever the reply: it is Out, aborted at once.
func CheckOut(path string, overwrite bool) error {
	p, err := Out(path, overwrite)
	if err == nil {
		p.Abort()
	}
	return err
}

// Out starts writing path, the image file a person named (call --out), by
// a Batch's rules but for its name (checkName); its folder must exist. The
// bytes must be the image the extension names, whatever the reply claimed.
// An error about the name is a *NameError.
func Out(path string, overwrite bool) (*Pending, error) {
	w, name, err := outTarget(path)
	if err != nil {
		return nil, err
	}
	p, err := w.create(name, overwrite, images[strings.ToLower(filepath.Ext(name))])
	if err != nil {
		w.close()
		return nil, err
	}
	w.roots = w.roots[:len(w.roots)-1] // the Pending's, closed with it
	w.close()
	return p, nil
}

func outTarget(path string) (*walked, string, error) {
	if path == "" {
		return nil, "", errors.New("files: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("files: %w", err)
	}
	name := filepath.Base(abs)
	if why := checkName(name); why != "" {
		return nil, "", &NameError{Why: why}
	}
	w, _, err := walk(filepath.Dir(abs), false, false)
	return w, name, err
}

// NameError is the refusal of --out's name; Why never quotes the name.
type NameError struct {
	Why string
}

func (e *NameError) Error() string { return "files: the file name is refused: " + e.Why }

// checkName returns why name, the last part of an --out path, is refused,
// or "". Holding Mark is refused, so it is never a name a Batch builds.
func checkName(name string) string {
	first, _ := utf8.DecodeRuneInString(name)
	switch {
	case name == "":
		return "it is empty"
	case len(name) > maxName:
		return fmt.Sprintf("it is %d bytes, over %d", len(name), maxName)
	case !utf8.ValidString(name):
		return "it is not valid UTF-8"
	case name[0] == '.':
		return "it is hidden (starts with a dot)"
	case unicode.IsSpace(first):
		return "it starts with a space"
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "it ends with a dot or a space, which Windows drops"
	case strings.ContainsAny(name, `:*?"<>|\`):
		return `it holds one of : * ? " < > | \`
	case reserved(name):
		return "it is a Windows device name"
	}
	for _, r := range name {
		if why := unprintable.Describe(r); why != "" {
			return "it holds " + why
		}
	}
	if _, ok := images[strings.ToLower(filepath.Ext(name))]; !ok {
		return "it is not an image name (.png .jpg .jpeg .gif .webp); a design is saved with --save"
	}
	if strings.Contains(strings.ToUpper(name), strings.ToUpper(Mark)+".") {
		return "it holds " + Mark + ". , the mark of the names --save builds"
	}
	return ""
}

const maxStem = 32

// Mark is what every name Name builds carries before its extension
// (rose.stitchslop.dst): the extension still opens the file in its apps,
// and no tool reads a name holding ".stitchslop." by exact name, so what
// the bridge writes is never package.json or folder.jpg.
const Mark = ".stitchslop"

// Name builds the name a file is saved under from the name it was given,
// whoever gave it, and its bytes, so no byte of the given name decides the
// saved one on its own (docs/protocol.md §7.15): a stem of a-z, 0-9, "-"
// and "_", then Mark, then the content's extension (an image's by its
// bytes, else the claimed design, .txt or .md kind if the bytes pass
// looks, else .txt for text). install.sh becomes install.stitchslop.txt.
func Name(given string, data []byte) (stem, ext string, err error) {
	return name(given, content{data: data})
}

func name(given string, c content) (stem, ext string, err error) {
	given = given[strings.LastIndexAny(given, `/\`)+1:]
	ext = strings.ToLower(filepath.Ext(given))
	var b []byte
	for _, c := range []byte(strings.TrimSuffix(given, filepath.Ext(given))) {
		switch {
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c == '.' || c == ' ':
			b = append(b, '-')
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			b = append(b, c)
		}
	}
	stem = strings.Trim(string(b[:min(len(b), maxStem)]), "-_")
	if stem == "" {
		stem = "file"
	}
	_, image := images[ext]
	head := c.head()
	switch {
	case sniff(head) != "":
		ext = imageExt[sniff(head)]
	case image:
		return "", "", &BytesError{Want: images[ext]}
	case (designs[ext] != (kind{}) || ext == ".txt" || ext == ".md") && looks(ext, head, c):
	case c.text():
		ext = ".txt"
	default:
		return "", "", errors.New("files: its bytes are no image, no text, and not the kind its name says; the app's kinds are " + appKinds)
	}
	if ext == Mark {
		ext = ""
	}
	return stem, Mark + ext, nil
}

// looks reports whether c, whose first bytes are head, passes ext's cheap
// check; kinds with no cheap signature (.dst .jef .exp .vp3 .inf .col
// .dxf) are taken on the name's word.
func looks(ext string, head []byte, c content) bool {
	switch ext {
	case ".pes":
		return bytes.HasPrefix(head, []byte("#PES"))
	case ".json", Mark:
		return c.json()
	case ".svg":
		return c.svg()
	case ".txt", ".md":
		return c.text()
	}
	return true
}

var imageExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// A Batch saves the files of one reply into Dir, each under a name Name
// builds; a stem already taken (as a disk compares, sameName) or a Windows
// device name gets "-2", "-3" ..., so no file of a reply replaces another.
type Batch struct {
	Dir       string
	Overwrite bool
	taken     []string // the names saved
}

// Save saves data under the name Name builds from given and data.
func (b *Batch) Save(given string, data []byte) (string, error) {
	path, _, err := b.save(given, content{data: data})
	return path, err
}

// SaveBase64 is Save of the bytes payload, standard base64 by the one rule
// (Base64Payload checked it), decodes to: decoded a chunk at a time, each
// time Name or the write reads it, never whole in memory, so saving a
// reply's file of megabytes costs no copy of it. It returns the path and
// how many bytes were written.
func (b *Batch) SaveBase64(given string, payload []byte) (string, int64, error) {
	return b.save(given, content{data: payload, b64: true})
}

func (b *Batch) save(given string, c content) (string, int64, error) {
	stem, ext, err := name(given, c)
	if err != nil {
		return "", 0, err
	}
	name := stem + ext
	for n := 2; reserved(name) || slices.ContainsFunc(b.taken, func(t string) bool { return sameName(t, name) }); n++ {
		name = fmt.Sprintf("%s-%d%s", stem, n, ext)
	}
	path, n, err := save(b.Dir, name, c, b.Overwrite)
	if err == nil {
		b.taken = append(b.taken, name)
	}
	return path, n, err
}

// sameName reports whether a case-insensitive disk may take a and b for
// one file (NTFS upper-cases, so dotless ı is I).
func sameName(a, b string) bool {
	return strings.EqualFold(a, b) || strings.EqualFold(strings.ToUpper(a), b)
}

// reserved reports whether name is a Windows device name, whatever its
// extension, case, or trailing spaces and dots.
func reserved(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	return devices[strings.ToUpper(strings.TrimRight(stem, " ."))]
}

var devices = func() map[string]bool {
	m := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}
	for _, n := range strings.Fields("0 1 2 3 4 5 6 7 8 9 ¹ ² ³") {
		m["COM"+n], m["LPT"+n] = true, true
	}
	return m
}()

const maxArgDepth = 3

// ArgError is SetArg's refusal of a key through At, which is not an object.
type ArgError struct {
	Key, At string
	Value   any
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("files: argument key %q: %q is a %T, not an object", e.Key, e.At, e.Value)
}

// SetArg puts value into args at key, a dotted path of at most
// maxArgDepth parts, creating objects on the way; an intermediate value
// that is not an object is an *ArgError.
func SetArg(args map[string]any, key string, value any) error {
	if args == nil {
		return errors.New("files: no arguments to set into")
	}
	parts := strings.Split(key, ".")
	if len(parts) > maxArgDepth || slices.Contains(parts, "") {
		return fmt.Errorf("files: argument key %q: want 1 to %d non-empty names joined by dots", key, maxArgDepth)
	}
	m := args
	for i, p := range parts[:len(parts)-1] {
		v, ok := m[p]
		if !ok {
			v = map[string]any{}
			m[p] = v
		}
		child, ok := v.(map[string]any)
		if !ok {
			return &ArgError{Key: key, At: strings.Join(parts[:i+1], "."), Value: v}
		}
		m = child
	}
	m[parts[len(parts)-1]] = value
	return nil
}
