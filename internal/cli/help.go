package cli

import (
	"fmt"
	"strings"
)

// Help texts, made from commands. Help asked for goes to stdout; usage after
// a mistake goes to stderr, as an error and a hint naming VERB --help.

// helpWidth is the width help is wrapped to: within a terminal's 80
// columns, which some wrap at the 80th character.
const helpWidth = 79

// flagColumn is where a flag's help starts, the flag and its value before.
const flagColumn = 28

// overview is what --help and help print: every form, every verb, where to
// read more.
func overview() string {
	var b strings.Builder
	b.WriteString(`stitchslop-bridge connects an AI agent to the Stitch Slop design open in a
browser tab: the tab dials it on 127.0.0.1, and the agent drives it as an
MCP server on stdin/stdout, or from any shell with its verbs.

usage:
  stitchslop-bridge [flags]                  run the bridge
  stitchslop-bridge VERB [ARGS] [flags]      run a verb

`)
	b.WriteString(wrap(commands[0].Long, "", helpWidth))
	b.WriteString("\n\nVerbs:\n")
	for _, c := range commands[1:] {
		fmt.Fprintf(&b, "  %-12s%s\n", c.Name, c.Summary)
	}
	b.WriteString("\nFlags, when running the bridge:\n")
	writeFlags(&b, commands[0].Flags)
	b.WriteString("  --version                 print the version and wire protocol, and exit\n")
	b.WriteString("\nExit status, when running the bridge:\n")
	writeExits(&b, commands[0].Exits)
	b.WriteString(`
The shell verbs (status, tools, wait, call, pair, unpair) print one
JSON document on stdout and exit 0 only when it says ok:true; 1 for a
refusal or a failed command, 3 when no bridge is running (or several are
and --port does not say which), 64 for a usage error, 130 when Ctrl-C
stopped them before the bridge answered.

Environment: STITCHSLOP_TOKEN (the one-time token), STITCHSLOP_ORIGIN (the
default --origin). Files: ~/.stitchslop, or --config-dir.

Run 'stitchslop-bridge help VERB' or 'stitchslop-bridge VERB --help' for a
verb's arguments and flags. The tools a person runs by hand (demo, setup,
doctor, listen, completion, man) are the stitchslop program's, installed
beside this one: run 'stitchslop help'.
`)
	return b.String()
}

// helpFor is the help of one verb, or of the bridge (Name "").
func helpFor(c *command) string {
	if c.Name == "" {
		return c.prog.Overview()
	}
	var b strings.Builder
	for i, s := range c.Synopsis {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		b.WriteString(wrap(c.prog.Name+" "+s, lead, helpWidth))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%s.\n\n%s\n", capitalise(c.Summary), wrap(c.Long, "", helpWidth))
	if len(c.Flags) > 0 {
		b.WriteString("\nFlags:\n")
		writeFlags(&b, c.Flags)
	}
	if len(c.Exits) > 0 {
		b.WriteString("\nExit status:\n")
		writeExits(&b, c.Exits)
	}
	return b.String()
}

func writeExits(b *strings.Builder, es []exitDef) {
	for _, e := range es {
		b.WriteString(wrap(e.Meaning, fmt.Sprintf("  %-4d", e.Code), helpWidth))
		b.WriteString("\n")
	}
}

// reference is every command's help in turn: what `help all` prints.
func (p *Program) reference() string {
	var b strings.Builder
	b.WriteString(p.Overview())
	for _, c := range p.Commands[1:] {
		b.WriteString("\n" + strings.Repeat("-", helpWidth-1) + "\n\n")
		b.WriteString(helpFor(c))
	}
	return b.String()
}

func writeFlags(b *strings.Builder, fs []flagDef) {
	for _, f := range fs {
		name := "--" + f.Name
		if f.Value != "" {
			name += " " + f.Value
		}
		lead := fmt.Sprintf("  %-*s", flagColumn-2, name)
		if len(lead) > flagColumn {
			b.WriteString(strings.TrimRight(lead, " ") + "\n")
			lead = strings.Repeat(" ", flagColumn)
		}
		b.WriteString(wrap(f.Help, lead, helpWidth))
		b.WriteString("\n")
	}
}

// wrap fills text's paragraphs (split on blank lines) to width, the first
// line after lead and the rest indented as deep.
func wrap(text, lead string, width int) string {
	indent := strings.Repeat(" ", len(lead))
	var out []string
	for i, para := range strings.Split(text, "\n\n") {
		line := lead
		if i > 0 {
			out = append(out, "")
			line = indent
		}
		empty := true
		for _, w := range strings.Fields(para) {
			if !empty && len(line)+1+len(w) > width {
				out = append(out, line)
				line, empty = indent, true
			}
			if !empty {
				line += " "
			}
			line += w
			empty = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
