package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// JSON-RPC batches, which MCP allowed in 2025-03-26 only. A session that
// negotiated it serves them as JSON-RPC 2.0 says: each request answered
// as if on its own line, with the same bounds, the answers together as one
// array on one line once the last is ready, at most MaxBatch messages.
// Every other era gets one -32600 for the whole line.

const batchVersion = "2025-03-26"

type batch struct {
	mu    sync.Mutex
	parts Message // "[", answers separated by ",", no newlines
	// pending counts what the batch still waits for: the reader's pass
	// over its messages, and each held request not yet answered or
	// dropped. The one that brings it to zero writes the batch.
	pending int
	// held counts the MaxInFlight slots its held requests took. They are
	// kept until the batch is written, answered or not, so the batch
	// always has a slot behind it when it goes out through SendHeld.
	held int
}

var (
	batchOpen  = Piece{Encoded: []byte("[")}
	batchComma = Piece{Encoded: []byte(",")}
	batchClose = Piece{Encoded: []byte("]\n")}
)

func (b *batch) hold() {
	b.mu.Lock()
	b.pending++
	b.held++
	b.mu.Unlock()
}

// add records one answer, a message ending in a newline.
func (b *batch) add(m Message) {
	if len(m) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.parts) == 0 {
		b.parts = append(b.parts, batchOpen)
	} else {
		b.parts = append(b.parts, batchComma)
	}
	last := m[len(m)-1] // its newline is the line's end, which the array's is
	last.Encoded = bytes.TrimSuffix(last.Encoded, []byte("\n"))
	b.parts = append(b.parts, m[:len(m)-1]...)
	b.parts = append(b.parts, last)
}

// settle marks one thing the batch waited for as done and, when it was the
// last, writes the batch: through Send when no held request is in it (only
// the reader can finish such a batch, and it may block), else through
// SendHeld, which never blocks, on the slots the batch holds.
func (s *Session) settle(b *batch) {
	b.mu.Lock()
	b.pending--
	done := b.pending == 0
	parts, held := b.parts, b.held
	b.mu.Unlock()
	if !done {
		return
	}
	giveBack := func() {
		for range held {
			s.release()
		}
	}
	switch {
	case len(parts) == 0 || s.ctx.Err() != nil:
		giveBack()
	case held == 0:
		s.out.Send(append(parts, batchClose))
	default:
		s.out.SendHeld(append(parts, batchClose), giveBack)
	}
}

func (s *Session) batches() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.era == eraLegacy && s.version == batchVersion
}

var errBatchTooLong = errors.New("batch too long")

// splitBatch returns the messages of the array line, valid JSON, stopping
// at max+1 of them.
func splitBatch(line []byte, max int) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var msgs []json.RawMessage
	for dec.More() {
		if len(msgs) == max {
			return nil, errBatchTooLong
		}
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return msgs, nil
}

func (s *Session) handleBatch(line []byte) {
	if !s.batches() {
		s.fail(null, codeInvalidRequest, "invalid request: JSON-RPC batches are served only on a connection that negotiated MCP "+batchVersion+"; send one message per line")
		return
	}
	msgs, err := splitBatch(line, MaxBatch)
	switch {
	case errors.Is(err, errBatchTooLong):
		s.fail(null, codeInvalidRequest, fmt.Sprintf("invalid request: a batch holds at most %d messages; nothing in it was done", MaxBatch))
		return
	case err != nil:
		s.fail(null, codeParse, "parse error: the batch is not valid JSON")
		return
	case len(msgs) == 0:
		s.fail(null, codeInvalidRequest, "invalid request: the batch is empty")
		return
	}
	b := &batch{pending: 1}
	s.batch = b
	for _, m := range msgs {
		r, ok := s.parse(m)
		switch {
		case !ok:
		case r.id == nil:
			s.notification(r)
		case r.method == "initialize":
			// 2025-03-26: initialize must not be part of a batch.
			s.fail(r.id, codeInvalidRequest, "invalid request: initialize must not be part of a batch; send it on its own line")
		default:
			s.dispatch(r)
		}
	}
	s.batch = nil
	s.settle(b)
}
