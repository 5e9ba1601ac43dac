package setup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes plans for a person: each client's recommended form
// first, then the environment-variable form with its warning, then notes.
func WriteText(w io.Writer, plans []Plan) error {
	bw := bufio.NewWriter(w)
	for i, p := range plans {
		if i > 0 {
			bw.WriteString("\n")
		}
		fmt.Fprintf(bw, "%s (%s)\n\n", p.Title, p.Client)
		if p.Unsupported != "" {
			writeWrapped(bw, "  ", p.Unsupported)
			continue
		}
		if len(p.Build) > 0 {
			bw.WriteString("  First, build the binary these lines name (this one is go run's, in the build cache):\n")
			writeSnippets(bw, p.Build)
			bw.WriteString("\n")
		}
		if b := p.Bundle; b != nil {
			bw.WriteString("  One click: the Stitch Slop bundle for Claude Desktop. It starts the bridge with\n")
			bw.WriteString("  --lazy, so no token is written into any file.\n\n")
			for n, step := range b.Steps {
				writeWrapped(bw, fmt.Sprintf("  %d. ", n+1), step)
				if n == 0 {
					bw.WriteString("\n      " + b.URL + "\n\n")
				}
				if n == 1 {
					for _, way := range b.Verify {
						bw.WriteString("\n")
						writeWrapped(bw, "     ", way.When)
						writeSnippets(bw, way.Commands)
					}
					bw.WriteString("\n")
				}
			}
			bw.WriteString("\n  Or by hand, in the config file. Recommended: no token in any file. The client\n")
			bw.WriteString("  starts the bridge with --lazy; the agent then calls the pair tool with the token\n  you paste.\n")
		} else {
			bw.WriteString("  Recommended: no token in any file. The client starts the bridge with --lazy;\n")
			bw.WriteString("  the agent then calls the pair tool with the token you paste.\n")
		}
		writeSnippets(bw, p.Recommended)
		if len(p.EnvForm) > 0 {
			bw.WriteString("\n  Or, with the token in the environment:\n")
			writeWrapped(bw, "  ", p.EnvWarning)
			writeSnippets(bw, p.EnvForm)
		}
		if len(p.VoiceChannel) > 0 {
			bw.WriteString("\n  Or, so that what you say to the tab reaches the session by itself (Claude Code's\n")
			bw.WriteString("  channels, a research preview): register with --voice-channel, then start Claude\n")
			bw.WriteString("  Code with the second line, which loads this server's channel:\n")
			writeSnippets(bw, p.VoiceChannel)
		}
		if len(p.ShellVerbs) > 0 {
			bw.WriteString("\n  From a shell, at once (no registration, no new session):\n")
			writeSnippets(bw, p.ShellVerbs)
		}
		if len(p.Notes) > 0 {
			bw.WriteString("\n  Notes:\n")
			for _, n := range p.Notes {
				writeWrapped(bw, "  - ", n)
			}
		}
	}
	return bw.Flush()
}

func writeSnippets(w *bufio.Writer, ss []Snippet) {
	for _, s := range ss {
		switch s.Kind {
		case "command":
			fmt.Fprintf(w, "\n    %s:\n", shellTitles[Shell(s.Shell)])
		default:
			fmt.Fprintf(w, "\n    in %s:\n", s.Where)
		}
		for _, line := range strings.Split(s.Text, "\n") {
			w.WriteString("      " + line + "\n")
		}
	}
}

// wrapWidth is the column prose is wrapped at; snippets are never wrapped,
// since a broken line would not run.
const wrapWidth = 100

func writeWrapped(w *bufio.Writer, prefix, text string) {
	indent := strings.Repeat(" ", len(prefix))
	line := prefix
	// The placeholder is one unit: broken over two lines it would not
	// read as the thing to replace.
	glued := strings.ReplaceAll(TokenPlaceholder, " ", "\x00")
	text = strings.ReplaceAll(text, TokenPlaceholder, glued)
	for _, word := range strings.Fields(text) {
		word = strings.ReplaceAll(word, "\x00", " ")
		if len(line) > len(prefix) && len(line)+1+len(word) > wrapWidth {
			w.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) || (line == prefix && len(line) > len(prefix)) {
			line += " "
		}
		line += word
	}
	w.WriteString(line + "\n")
}

// WriteJSON writes plans as one JSON document, {"clients": [...]}, for an
// agent to read.
func WriteJSON(w io.Writer, plans []Plan) error {
	if plans == nil {
		plans = []Plan{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Clients []Plan `json:"clients"`
	}{plans})
}
