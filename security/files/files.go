// Package files stands between the agent's file tools and the disk: it reads
// a file the agent sends to the tab (Read), writes a file the tab sends
// back (Batch for a reply's files, Out for call --out's image, one walk
// and one writer for both), and is the one writer that replaces a file (Pending), for those
// and, through security/fileperm, the pairing and session files. It
// mitigates THREAT_MODEL.md T16 (file-tools): a page, which
// may be a hostile or compromised site, talks the agent into
//
//   - (a) exfiltrating a local secret by "uploading" it to the page:
//     ~/.ssh/id_rsa, ~/.aws/credentials, the bridge's own
//     ~/.stitchslop/pairing.json; or
//   - (b) writing a file the tab returns to a dangerous place or under a
//     dangerous name: ../../x.sh, .bashrc, a/b.dst, a script.
//
// Read mitigates (a):
//
//   - A path with any hidden component (a name starting with "."), once made
//     absolute and cleaned, is refused, and so is a path whose symlinks
//     lead through one. Secrets live in dot-folders (~/.ssh, ~/.aws,
//     ~/.gnupg, ~/.config, ~/.stitchslop), so ".." tricks and links into
//     them fail.
//   - Race-free by construction (walk.go): the path is never resolved
//     once and opened again. It is walked from its volume's root one
//     component at a time, each inspected without following it and opened
//     from the folder already opened (os.Root), then checked to be the
//     object inspected; a symlink is read and its target walked the same
//     way. So the hidden check applies to the path the file is actually
//     reached by, and another local user flipping an entry of a folder it
//     owns between a decoy and a link into our hidden folder (T16, other
//     user) makes the walk look again (maxRaces times) or fail, never
//     send the hidden file. On Windows a junction is followed the same
//     way, and an 8.3 short name (SSH~1 for .ssh) is turned into its long
//     name (GetLongPathName) before it is judged.
//   - Only images recognised by their bytes (PNG, JPEG, GIF, WebP) and design
//     files by extension (.dst .pes .jef .exp .vp3 .inf .col .svg .dxf
//     .stitchslop .json) are sent. A key, a credentials file, a shell
//     history or a database has none of these kinds; a text file renamed
//     .png is refused by its bytes.
//   - Only a regular file of at most MaxIn bytes is read, and never more
//     than MaxIn+1 bytes whatever Stat said; text mode needs valid UTF-8.
//
// Batch (a reply's files) and Out (call --out) mitigate (b), by the same
// walk and writer; what needs no reply is asked before the call (Prepare
// for a Batch's folder, CheckOut for Out), down to proving the folder
// takes a new file (probe: a temporary file created exclusively in the
// folder the walk opened, as the write will make its own, and removed),
// so /proc/self or a read-only folder is refused before the tab runs
// anything:
//
//   - Every name a Batch saves under is built, never taken (Name,
//     docs/protocol.md §7.15): a stem of at most 32 of a-z, 0-9, - and _
//     kept from the name given (a page's, or the agent's fileName or
//     textFile: one rule whoever chose it), then Mark (".stitchslop"),
//     then an extension chosen by the content's kind from one list of the
//     app's kinds: an image's by its bytes, else the design kind the name
//     claims when the bytes pass its cheap check (looks), else .txt for
//     UTF-8 text; other bytes are refused. So every saved name holds
//     ".stitchslop." (rose.stitchslop.dst, logo.stitchslop.png,
//     package.stitchslop.json), which no tool, agent or OS reads by exact
//     name, no byte of the name given decides the name on its own, no list
//     of forbidden names is kept, and no saved name is a path, hidden,
//     holds a character that shows as something else, or ends as a
//     script, an executable or a tool's configuration does. A stem taken
//     in the Batch (in any case) or a Windows device name (CON, NUL.png)
//     gets -2, -3 ..., so no file of a reply replaces another.
//   - --out is the one name not built: an exact path a person typed, held
//     by checkName to a bare, visible name valid on every OS (none of the
//     characters Windows refuses, no device name, no trailing dot or
//     space, no character of security/unprintable's rule, never holding
//     Mark and a dot, so never a name a Batch builds) of a raster image
//     kind, whose bytes must be that image (Pending.Commit checks): a
//     design goes through a Batch. Files are created 0666 less the umask,
//     never executable.
//   - dir may have no hidden component (no ~/.config, no .git), reached
//     through symlinks or not: it is walked and opened race-free as Read
//     walks, and its missing folders are created by the same walk, as
//     mkdir -p would (0777 less the umask), each checked after it is made
//     like any other. The file is then created in the folder opened, by
//     name, never by a path resolved again.
//   - On Unix the walk follows a symbolic link only if the user or root
//     owns it (as fs.protected_symlinks would in a sticky folder), and
//     the folder written into must be the user's own, whoever made it;
//     the path reported is the one the walk resolved. On Windows owners
//     are not consulted.
//   - Every file is written by a Pending (atomic.go), the one writer that
//     replaces files: a temporary file put in place whole. Without
//     overwrite it appears only if nothing is at the name (a hard link, or
//     a copy into a file created exclusively), which also refuses an
//     existing symlink, so nothing is replaced or written through. With
//     overwrite it is renamed over the name, and only over a regular file
//     (check): a folder, a symlink, a FIFO or a device there is refused (one
//     swapped in after the check is replaced by the rename, never written
//     through). A failed write leaves no partial file.
//
// Not covered: a file of an allowed kind and name is sent, or saved, whatever
// its content (a secret kept in ~/Documents/notes.json goes; an .svg saved
// may hold script; .dst .jef .exp .vp3 .inf .col and .dxf have no cheap
// signature and are taken on the name's word). A tool that reads every file of a kind, or
// a name by a word anywhere in it (*requirements*.txt), may read a saved
// file: the stem is the page's word. --out takes the exact name the
// person typed. A user who renames a saved file to the page's name undoes
// the mark. The agent chooses
// the path to read and the directory to write; a page that talks it into
// choosing a non-hidden secret or a sensitive non-hidden directory is not
// stopped here. Hidden means a leading "." only: the Windows hidden attribute
// (AppData) and macOS's (~/Library) are not consulted, and a --config-dir
// outside a dot-folder is not protected. With overwrite, the new file takes
// 0666 less the umask, not the old file's mode. A hard link to a secret
// made in a visible folder is a visible file: the walk sees names, and
// only a user who can already read the secret can link it (Linux's
// protected_hardlinks refuses others). Every folder on the path must be
// readable as well as searchable, since the walk opens each one: a path
// through a search-only (--x) folder is refused. Another process of the
// same user (T11) can do anything the user can and is not stopped. Batch.Save
// does not bound the size of what it writes.
// An --out name that only looks like another is not refused ("pay.png" in
// Cyrillic letters, "a∕b.png" with a DIVISION SLASH); nor is a Windows 8.3
// short name (DESIGN~1.DST) that may alias an existing long one.
package files

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// MaxIn is the largest file Read sends to the tab, in bytes: 14 MB, as the
// reference bridge allows. Its data URL is a third larger.
const MaxIn = 14 << 20

// Mode of a file sent to the tab.
const (
	DataURL = "dataUrl" // data:<mime>;base64,<data>
	Text    = "text"    // the file's text; UTF-8 only
)

// MaxSaved bounds the files of one reply that are saved (call --save,
// call_to_files): an export is a handful (a machine file, its colours, a
// preview), and a page must not fill a folder with thousands of files, each
// of them synced to disk. The callers refuse each entry past it, saying so.
const MaxSaved = 32

// maxName is the longest --out name checkName takes, in bytes: the limit
// of ext4, APFS and NTFS (which counts UTF-16 units, so this is no looser).
// A name Name builds is far shorter.
const maxName = 255

// images maps an image extension to the MIME type its bytes must sniff as.
var images = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp",
}

// kind is a file type recognised by its extension.
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

// binary is a design kind sent only as a data URL.
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
// Errors name the file by path, which is the caller's own input, and never
// quote its content.
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
		return In{}, fmt.Errorf("files: %w", err)
	}
	if fi.Size() > MaxIn {
		return In{}, fmt.Errorf("files: %s is %d bytes, over the %d MB limit", path, fi.Size(), MaxIn>>20)
	}
	// Stat's size is not trusted: the file may grow while it is read.
	data, err := io.ReadAll(io.LimitReader(f, MaxIn+1))
	if err != nil {
		return In{}, fmt.Errorf("files: %w", err)
	}
	if len(data) > MaxIn {
		return In{}, fmt.Errorf("files: %s is over the %d MB limit", path, MaxIn>>20)
	}

	ext := strings.ToLower(filepath.Ext(name))
	var k kind
	if m := sniff(data); m != "" {
		k = kind{mime: m}
	} else if _, ok := images[ext]; ok {
		return In{}, fmt.Errorf("files: %s is named %s but its bytes are not a PNG, JPEG, GIF or WebP image", path, ext)
	} else if k, ok = designs[ext]; !ok {
		return In{}, fmt.Errorf("files: %s is not a kind of file sent to the tab; allowed: %s", path, readKinds)
	}

	in := In{Name: name, Mime: k.mime, Size: int64(len(data))}
	switch {
	case mode == DataURL:
		in.Value = "data:" + k.mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	case !k.text:
		return In{}, fmt.Errorf("files: %s cannot be sent as text (only %s); send it as dataUrl", path, textKinds)
	case !utf8.Valid(data):
		return In{}, fmt.Errorf("files: %s is not valid UTF-8 text; send it as dataUrl", path)
	default:
		in.Value = string(data)
	}
	return in, nil
}

// hidden returns the first component of the clean path p that starts with
// ".", or "".
func hidden(p string) string {
	for _, part := range strings.Split(p[len(filepath.VolumeName(p)):], string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return part
		}
	}
	return ""
}

// Prepare makes dir ready to save into, before the call whose reply is to
// be saved there: it is walked as a Batch walks it (no hidden component,
// links walked), its missing folders are made, and it is proved to take a
// new file (probe). Batch.Save walks it again when it writes; Prepare only lets
// a caller refuse before anything is sent to the tab.
func Prepare(dir string) error {
	w, _, err := walk(dir, false, true)
	if err != nil {
		return err
	}
	defer w.close()
	return w.probe()
}

// probe proves that the walk's folder takes a new file, as a Pending will
// need: a temporary file is created there exclusively, in the folder
// opened, the way a Pending makes its own, and removed. A folder that
// exists but refuses files (read-only, /proc, /sys) is found out before
// the call, not after the tab has run the command.
func (w *walked) probe() error {
	p, err := create(w.dir(), "", w.abs, nil)
	if err != nil {
		return fmt.Errorf("files: %s: a file cannot be created there: %w", w.abs, err)
	}
	p.Abort() // closes w.dir(), which w.close closes again, doing nothing
	return nil
}

// save writes data as dir/name, a name Batch built (or a test gave), and
// returns the path written.
func save(dir, name string, data []byte, overwrite bool) (string, error) {
	w, _, err := walk(dir, false, true)
	if err != nil {
		return "", err
	}
	defer w.close()
	p, err := w.create(name, overwrite, images[filepath.Ext(name)])
	if err != nil {
		return "", err
	}
	if _, err := p.Write(data); err != nil {
		p.Abort()
		return "", fmt.Errorf("files: %s: %w", p.path, err)
	}
	var be *BytesError
	var ee *ExistsError
	switch err := p.Commit(overwrite); {
	case err == nil:
		return p.path, nil
	case errors.As(err, &be), errors.As(err, &ee):
		return "", err
	default:
		return "", fmt.Errorf("files: %s: %w", p.path, err)
	}
}

// ExistsError is a file that is there already, which is not replaced
// without overwrite. The caller says how its reader asks to replace it.
type ExistsError struct {
	Path string
}

func (e *ExistsError) Error() string {
	return "files: " + e.Path + " already exists; it is not replaced"
}

func (e *ExistsError) Unwrap() error { return fs.ErrExist }

// BytesError is a file whose bytes are not the image its name, or the data
// URL it came in, says: no script is put in place as preview.png.
type BytesError struct {
	Want string // the MIME type the bytes had to sniff as
}

func (e *BytesError) Error() string { return "files: its bytes are not " + e.Want }

// check refuses, in the walk's folder, what no write of name may do:
// nothing but a regular file there is ever replaced (a directory, a FIFO,
// a device, a symbolic link), and a file there is not without overwrite
// (Commit checks that again, at the moment it puts the file in place).
func (w *walked) check(name string, overwrite bool) error {
	path := filepath.Join(w.path(), name)
	fi, err := w.dir().Lstat(name)
	switch {
	case err == nil && !overwrite:
		return &ExistsError{Path: path}
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("files: %s is not a regular file (a folder, a link, a FIFO or a device); it is not replaced", path)
	}
	return nil
}

// create starts a Pending for name in the walk's folder, once check has
// let it. want, if set, is the image type the bytes must sniff as when
// committed.
func (w *walked) create(name string, overwrite bool, want string) (*Pending, error) {
	if err := w.check(name, overwrite); err != nil {
		return nil, err
	}
	// A Pending in the opened folder: without overwrite it appears only if
	// nothing is at the name, a symlink included; with overwrite it is
	// renamed over the name, never written through a link.
	p, err := create(w.dir(), name, filepath.Join(w.path(), name), nil)
	if err != nil {
		return nil, fmt.Errorf("files: %s: a file cannot be created there: %w", w.path(), err)
	}
	p.want = want
	return p, nil
}

// CheckOut refuses, before the call, the --out path that Out would refuse
// when the reply comes, whatever the reply: it is Out, dropped at once. A
// name that is not an image's (or breaks any other rule of a name), a
// folder that does not exist, has a hidden component or takes no new file,
// a file there without overwrite, anything but a regular file there. It
// leaves nothing behind: the temporary file is removed.
func CheckOut(path string, overwrite bool) error {
	p, err := Out(path, overwrite)
	if err == nil {
		p.Abort()
	}
	return err
}

// Out starts writing path, the file the user named for the image of a
// reply (call --out), by the rules a Batch writes by, but for its name: a
// bare image name (checkName), its folder, which must exist, is walked as
// a Batch walks (no hidden component, links walked), and the Pending is
// made in the folder opened. The bytes must sniff as the image its
// extension names (Commit checks), whatever type the reply claimed: a
// design goes through a Batch (--save), never --out. An error about the
// name is a *NameError.
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

// outTarget checks the name of path, an --out, and walks its folder.
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

// NameError is the refusal of --out's name (Out, CheckOut). Why says which
// rule the name breaks, in words for a person, and never quotes the name.
type NameError struct {
	Why string
}

func (e *NameError) Error() string { return "files: the file name is refused: " + e.Why }

// checkName returns why name, the last part of an --out path, is refused,
// or "": --out is the one name the bridge does not build (Name), an exact
// path a person typed, so it must be a bare name, not hidden, valid on
// every OS (no character Windows refuses, no device name, no trailing dot
// or space, no character of security/unprintable's rule) and of an image
// or design kind. The image's bytes are checked when it is written.
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

// maxStem is the longest stem Name keeps of the name it was given.
const maxStem = 32

// Mark is the part every name Name builds carries before its extension
// (rose.stitchslop.dst, logo.stitchslop.png): the final extension still
// opens the file in the apps of its kind, and no tool, agent or OS reads a
// name holding ".stitchslop." by its exact name, so what the bridge writes
// is never a file read by name (package.json, site.exp, icon.svg,
// folder.jpg), whatever it is called. No --out name may hold it (checkName),
// so a reply's files and its --out file never share a name.
const Mark = ".stitchslop"

// Name builds the name a file is saved under from the name it was given
// (a page's files[i].name, or the agent's fileName or textFile: the same
// rule whoever chose it) and its bytes, so that no byte of the given name
// decides the saved one on its own (docs/protocol.md §7.15):
//
//   - the stem is the given name's last part without its extension, ASCII
//     letters lower-cased, dots and spaces made "-", every other character
//     but a-z, 0-9, "-" and "_" dropped, at most maxStem bytes, beginning
//     and ending with a letter or digit; "file" when nothing is left;
//   - the kind is the content's: an image's by its bytes (a name that
//     claims an image its bytes are not is refused); else the given
//     extension when it is one of the app's kinds (designs), .txt or .md
//     and the bytes pass that kind's check (looks); else .txt when the
//     bytes are UTF-8 text; else the file is refused;
//   - the name is stem, Mark and the kind's extension: cdk.json becomes
//     cdk.stitchslop.json, logo.png logo.stitchslop.png, install.sh (a
//     script) install.stitchslop.txt; the .stitchslop kind is stem+Mark.
//
// Batch adds "-2", "-3" ... to a stem already taken. The result is a bare,
// visible, ASCII name, never a device name once Batch has looked.
func Name(given string, data []byte) (stem, ext string, err error) {
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
	switch {
	case sniff(data) != "":
		ext = imageExt[sniff(data)]
	case image:
		return "", "", &BytesError{Want: images[ext]}
	case (designs[ext] != (kind{}) || ext == ".txt" || ext == ".md") && looks(ext, data):
	case text(data):
		ext = ".txt"
	default:
		return "", "", errors.New("files: its bytes are no image, no text, and not the kind its name says; the app's kinds are " + appKinds)
	}
	if ext == Mark {
		ext = ""
	}
	return stem, Mark + ext, nil
}

// looks reports whether data passes the cheap check of the kind ext has
// one for: a PES starts "#PES", JSON (and .stitchslop, which is JSON) is
// valid, an SVG is well-formed XML whose root is <svg>, .txt and .md are
// UTF-8 text. The other machine and colour formats (.dst .jef .exp .vp3
// .inf .col) and .dxf have no signature this cheap, and are taken on the
// name's word.
func looks(ext string, data []byte) bool {
	switch ext {
	case ".pes":
		return bytes.HasPrefix(data, []byte("#PES"))
	case ".json", Mark:
		return json.Valid(data)
	case ".svg":
		return svg(data)
	case ".txt", ".md":
		return text(data)
	}
	return true
}

// text reports whether data is UTF-8 text: valid, with no NUL.
func text(data []byte) bool { return utf8.Valid(data) && !bytes.ContainsRune(data, 0) }

// svg reports whether data is well-formed XML whose root element is svg.
func svg(data []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(data))
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

// imageExt is the extension Name gives an image of each type sniff finds.
var imageExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// A Batch saves the files of one reply into one directory, each under a
// name Name builds, never two under one name: a stem already taken in the
// Batch, or one that Windows takes for a device, gets "-2", "-3" ...,
// so that no file of a reply replaces another, even with Overwrite. Names
// are compared as one disk compares them (sameName). The zero Batch saves
// into "" and so refuses everything; set Dir.
type Batch struct {
	Dir       string
	Overwrite bool
	taken     []string // the names saved
}

// Save saves data, given the name given, under the name Name builds, and
// returns the path written.
func (b *Batch) Save(given string, data []byte) (string, error) {
	stem, ext, err := Name(given, data)
	if err != nil {
		return "", err
	}
	name := stem + ext
	for n := 2; reserved(name) || slices.ContainsFunc(b.taken, func(t string) bool { return sameName(t, name) }); n++ {
		name = fmt.Sprintf("%s-%d%s", stem, n, ext)
	}
	path, err := save(b.Dir, name, data, b.Overwrite)
	if err == nil {
		b.taken = append(b.taken, name)
	}
	return path, err
}

// sameName reports whether a disk may take a and b for one file: names
// that differ in case only (APFS and NTFS by default; NTFS upper-cases,
// so dotless ı is I). b is a name Name built, ASCII, so no Unicode normal
// form can make them one.
func sameName(a, b string) bool {
	return strings.EqualFold(a, b) || strings.EqualFold(strings.ToUpper(a), b)
}

// reserved reports whether name is a Windows device name, whatever its
// extension or case: CON, PRN, AUX, NUL, COM0-9, LPT0-9 (and their
// superscript forms), CONIN$, CONOUT$. Windows ignores trailing spaces and
// dots before the extension.
func reserved(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	return devices[strings.ToUpper(strings.TrimRight(stem, " ."))]
}

// devices are the Windows device names, in upper case.
var devices = func() map[string]bool {
	m := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}
	for _, n := range strings.Fields("0 1 2 3 4 5 6 7 8 9 ¹ ² ³") {
		m["COM"+n], m["LPT"+n] = true, true
	}
	return m
}()

// maxArgDepth is how many dotted parts SetArg's key may have.
const maxArgDepth = 3

// ArgError is SetArg's refusal of a key that goes through At, a part of
// args that holds Value, which is not an object.
type ArgError struct {
	Key, At string
	Value   any
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("files: argument key %q: %q is a %T, not an object", e.Key, e.At, e.Value)
}

// SetArg puts value into args at key, a dotted path of at most 3 parts
// ("sidecar.data"), creating the objects on the way. An intermediate value
// that is there and not an object is an *ArgError, and args is left
// untouched.
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
