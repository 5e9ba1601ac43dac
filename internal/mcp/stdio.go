package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"
)

// MaxLine bounds one incoming message. Arguments may carry a file as a data
// URL, so it is generous; a longer line is answered with -32600 and skipped.
const MaxLine = 64 << 20

// syncQueue is how many answers the reader may queue ahead of the writer
// before it stops reading stdin: a client that does not read stdout is
// pushed back on, never buffered for.
const syncQueue = 64

// flushWait bounds how long a shutdown waits for the writer to put the last
// answers (subscription completions) on stdout; eofFlushWait, at the end of
// stdin, for answers already made to reach a client that may still read.
// Both are short, so a stalled stdout cannot keep the bridge alive.
const (
	flushWait    = time.Second
	eofFlushWait = 250 * time.Millisecond
)

type stdio struct {
	sync chan Message
	held chan heldMessage
	done chan struct{} // closed to stop the writer
	gone chan struct{} // closed when the writer has stopped
}

type heldMessage struct {
	m       Message
	written func()
}

func (t *stdio) Send(m Message) {
	select {
	case t.sync <- m:
	case <-t.done:
	}
}

func (t *stdio) SendHeld(m Message, written func()) {
	select {
	case t.held <- heldMessage{m, written}:
		yieldIfIdle(len(t.held) + len(t.sync))
	default:
		// Cannot happen while held requests are counted (each holds a
		// slot); dropping is the bound if it ever does.
		if written != nil {
			written()
		}
	}
}

// Serve runs one MCP session on in and out until in ends or ctx is done. It
// reports whether the client opened the session, which decides what the
// end of in means (protocol.md §2.8). At the end of in every request in
// flight is cancelled at once and Serve returns without waiting for them.
func (srv *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) (opened bool, err error) {
	t := &stdio{
		sync: make(chan Message, syncQueue),
		held: make(chan heldMessage, MaxInFlight+2*MaxSubscriptions),
		done: make(chan struct{}),
		gone: make(chan struct{}),
	}
	s := srv.NewSession(ctx, t)
	changed, unwatch := srv.Hub.Watch()
	defer unwatch()
	go t.write(out, s, changed, srv)
	if srv.VoiceChannel {
		go s.channel()
	}

	type ending struct {
		opened bool
		err    error
	}
	ended := make(chan ending, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(r)
			switch {
			case tooLong:
				t.Send(one(errorResponse(null, codeInvalidRequest, fmt.Sprintf("message over %d bytes", MaxLine), nil)))
			case len(bytes.TrimSpace(line)) > 0:
				s.Handle(line)
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				ended <- ending{s.Owned(), err}
				return
			}
		}
	}()

	select {
	case e := <-ended:
		if n := s.Close(); n > 0 {
			srv.Log.Info(fmt.Sprintf("the MCP client left; cancelled %d request(s) in flight", n))
		}
		t.stop(eofFlushWait)
		return e.opened, e.err
	case <-ctx.Done():
		// Ended from outside (a signal): subscriptions get their graceful
		// end, and the writer a moment to put it on stdout. The reader
		// stays blocked on stdin until the process exits.
		s.EndSubscriptions()
		s.Close()
		t.stop(flushWait)
		return s.Owned(), nil
	}
}

// yieldIfIdle gives the processor to a writer that took the message at
// once (queued is 0): the reader blocks on its next read right after, so
// the writer runs on this thread instead of being woken on another.
func yieldIfIdle(queued int) {
	if queued == 0 {
		runtime.Gosched()
	}
}

// stop ends the writer and waits up to wait for it to write what it
// already has.
func (t *stdio) stop(wait time.Duration) {
	select {
	case <-t.done:
	default:
		close(t.done)
	}
	if wait > 0 {
		select {
		case <-t.gone:
		case <-time.After(wait):
		}
	}
}

// write is the session's one writer, through one buffer flushed whenever
// nothing more is waiting. What is queued when the session ends is written
// before it returns; after a write error nothing more is.
func (t *stdio) write(out io.Writer, s *Session, changed <-chan struct{}, srv *Server) {
	defer close(t.gone)
	w := bufio.NewWriterSize(out, 64<<10)
	failed := false
	put := func(m Message) {
		for _, p := range m {
			for _, b := range [2][]byte{p.Encoded, p.Image.Base64()} {
				if failed {
					return
				}
				if _, err := w.Write(b); err != nil {
					failed = true
					srv.Log.Warn("could not write to stdout; the MCP client has gone", "err", err.Error())
				}
			}
		}
	}
	for {
		select {
		case m := <-t.sync:
			put(m)
		case h := <-t.held:
			put(h.m)
			if h.written != nil {
				h.written()
			}
		case <-changed:
			for _, m := range s.ListChanged() {
				put(m)
			}
		case <-s.Changes():
			for _, m := range s.ListChanged() {
				put(m)
			}
		case <-t.done:
			for {
				select {
				case m := <-t.sync:
					put(m)
					continue
				case h := <-t.held:
					put(h.m)
					continue
				default:
				}
				break
			}
			if !failed {
				w.Flush()
			}
			return
		}
		if len(t.sync) == 0 && len(t.held) == 0 && !failed {
			if err := w.Flush(); err != nil {
				failed = true
				srv.Log.Warn("could not write to stdout; the MCP client has gone", "err", err.Error())
			}
		}
	}
}

// readLine reads one line. A line over MaxLine is consumed and reported
// with tooLong, its bytes dropped.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}
