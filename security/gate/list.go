package gate

// List writes a list of objects the bridge builds of a reply's pieces (a
// files list saying what --save saved, listen's selection) and sees each
// piece as it writes it, as the door sees what it reads (Seen):
// AppendObject then writes a list with nothing in it to change as it is,
// without reading it again.
// A name or scalar is seen where it is written; a container value only by
// what the door saw of it, and one it did not see makes the list read
// when written. Names and values must be JSON the door passed or the
// bridge wrote (AppendString, Marshal).
type List struct {
	b    []byte
	seen Seen
	n, m int64 // the entries begun; the open entry's members
}

// NewList begins a list of about size bytes, grown once.
func NewList(size int) *List { return &List{b: append(make([]byte, 0, size), '[')} }

// Open begins an entry, an object.
func (l *List) Open() {
	if l.n > 0 {
		l.b = append(l.b, ',')
	}
	l.seen.Entry('[', l.n)
	l.n, l.m = l.n+1, 0
	l.b = append(l.b, '{')
}

// Member writes name:v in the open entry.
func (l *List) Member(name []byte, v Value) {
	if l.m > 0 {
		l.b = append(l.b, ',')
	}
	l.seen.Entry('{', 2*l.m)
	l.seen.Scalar(name)
	l.seen.Entry('{', 2*l.m+1)
	switch {
	case v.Seen.read:
		l.seen.Add(v.Seen)
	case v.Raw[0] != '{' && v.Raw[0] != '[':
		l.seen.Scalar(v.Raw)
	default:
		l.seen.changes = true
	}
	l.m++
	// Grown by a quarter at least, not doubled as append does: the list
	// may hold megabytes of a reply.
	if n := len(name) + 1 + len(v.Raw) + 2; cap(l.b)-len(l.b) < n {
		l.b = append(make([]byte, 0, len(l.b)+max(n, len(l.b)/4)), l.b...)
	}
	l.b = append(append(append(l.b, name...), ':'), v.Raw...)
}

// Close ends the open entry.
func (l *List) Close() { l.b = append(l.b, '}') }

// Value ends the list; l is not to be used after.
func (l *List) Value() Value {
	l.seen.Closed()
	return Value{Raw: append(l.b, ']'), Seen: l.seen}
}
