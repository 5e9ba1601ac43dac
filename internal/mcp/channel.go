package mcp

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/speech"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// The voice channel (--voice-channel, protocol.md §7.19): the initialize
// result declares Claude Code's channel capability, and the bridge sends
// each utterance the tab heard as one notifications/claude/channel. It
// declares nothing else: no permission relay, so a page can never answer
// for the user when the agent asks to use a tool.

// ChannelMethod is the notification of one channel event.
const ChannelMethod = "notifications/claude/channel"

const channelCapability = "claude/channel"

// ChannelInstructions follow Instructions when the channel is on: what
// the events are and how to answer them.
const ChannelInstructions = " Voice: what the user says to the Stitch Slop tab reaches you by itself, as channel events from this server, one per utterance; " +
	"the event's text is the user's request as the tab's speech recognition heard it, not typed and not instructions from the tab, so confirm before anything destructive or hard to undo. " +
	"Its selection attribute names the shapes the user had selected, its time when the bridge received it; an event with a voice attribute says the user switched voice input on or off, and one with dropped that some utterances were too many to pass on. " +
	"Answer the user out loud with the tab's voice.say tool; never call voice.listen and start no listener: the bridge listens for you."

func (srv *Server) capabilities() map[string]any {
	c := map[string]any{"tools": map[string]any{"listChanged": true}}
	if srv.VoiceChannel {
		c["experimental"] = map[string]any{channelCapability: map[string]any{}}
	}
	return c
}

func (srv *Server) instructions() string {
	if srv.VoiceChannel {
		return Instructions + ChannelInstructions
	}
	return Instructions
}

// channel runs the voice loop (speech.Run) for this session until it
// ends, from notifications/initialized on a connection opened with
// initialize (before it, an utterance would go to no one; a 2026-07-28
// session never starts it). From then on only the loop asks
// (hub.Hub.SetVoiceOwner).
func (s *Session) channel() {
	defer func() {
		if s.hearing.Swap(false) {
			s.srv.Hub.SetVoiceOwner(0)
		}
	}()
	select {
	case <-s.initialized:
	case <-s.ctx.Done():
		return
	}
	speech.Run(s.ctx, s.srv.Hub, func(e speech.Event) { s.out.Send(channelNotification(e)) })
}

// channelNotification is e as one JSON-RPC notification: its text passes
// the gate as a result's does; meta's keys are the voice package's own.
func channelNotification(e speech.Event) Message {
	b := []byte(`{"jsonrpc":"2.0","method":"` + ChannelMethod + `","params":{"content":`)
	b = gate.AppendString(b, gate.Text(e.Content))
	b = append(b, `,"meta":{`...)
	keys := make([]string, 0, len(e.Meta))
	for k := range e.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = gate.AppendString(b, k)
		b = append(b, ':')
		b = gate.AppendString(b, gate.Clean(e.Meta[k]))
	}
	return one(append(b, "}}}\n"...))
}

// channelVoicePart is the greeting's voice part when the channel is on:
// no command to start. running are the listen processes of the tab's
// bridge; any but this process (a follower's asks are listed at its
// leader) takes the words instead, and is named.
func channelVoicePart(switchy bool, running []int) (string, bool) {
	var others []string
	for _, p := range running {
		if p != os.Getpid() {
			others = append(others, strconv.Itoa(p))
		}
	}
	if len(others) > 0 {
		return "Voice: a listener is already running for this tab (pid " + strings.Join(others, ", ") + "), so what the user says goes to it, not to this session's channel; start nothing, and do not call voice.listen yourself.", false
	}
	text := "Voice: the tab offers voice input, and this bridge passes what the user says to you by itself, as channel events (see this server's instructions): start no listener, and never call voice.listen yourself."
	if switchy {
		return text + " The app has a voice switch: do not greet the user yet. When an event with voice=\"on\" arrives, greet them with voice.say, text \"" + greetSay + "\"; " +
			"on voice=\"off\" say nothing; on voice=\"unsupported\" voice cannot work in this browser, and you tell the user.", true
	}
	return text + " Greet the user with voice.say, text \"" + greetSay + "\".", false
}
