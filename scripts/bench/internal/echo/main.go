// Command echo is the stdio floor of scripts/bench: a child process that
// answers every line it reads on stdin with one line on stdout, and does
// nothing else. With -reply 0 (the default) the answer is the line itself;
// with -reply N it is a line of N bytes, newline included, so a small
// request can be answered with a reply as large as the bridge's.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"os"
)

func main() {
	reply := flag.Int("reply", 0, "answer each line with a line of this many bytes, newline included (0: echo the line)")
	flag.Parse()

	var fixed []byte
	if *reply > 0 {
		fixed = bytes.Repeat([]byte("x"), *reply)
		fixed[len(fixed)-1] = '\n'
	}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return // end of input; a partial last line is dropped
		}
		out := line
		if fixed != nil {
			out = fixed
		}
		if _, err := os.Stdout.Write(out); err != nil {
			os.Exit(1)
		}
	}
}
