// Command otheruser is run by the e2e tests as another local user
// (uid 65534). It uses the standard library only, so it builds anywhere.
//
//	otheruser listen PORT        listen on 127.0.0.1:PORT, print "ready", wait
//	otheruser listen HOST:PORT   the same on HOST:PORT ("[::1]:8787")
//	otheruser request PORT       send stdin as one raw HTTP request, print the
//	                             answer's first line or "closed"
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: otheruser listen|request PORT")
		os.Exit(2)
	}
	addr := "127.0.0.1:" + os.Args[2]
	if strings.Contains(os.Args[2], ":") {
		addr = os.Args[2]
	}
	switch os.Args[1] {
	case "listen":
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		time.Sleep(time.Minute) // the test kills it
		ln.Close()
	case "request":
		req, _ := io.ReadAll(os.Stdin)
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(req)
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			fmt.Println("closed")
			return
		}
		fmt.Print(line)
	}
}
