package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"

	"github.com/stitchslop/stitchslop-bridge/security/peercred"
)

// tcpOwner listens on loopback, connects to itself, and asks peercred (the
// bridge's own lookup, over the TCP table on Windows) whether this process
// holds the port and whether the accepted peer is this user.
func tcpOwner() (bool, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return false, "", err
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return false, "", err
	}
	defer c.Close()
	peer, err := ln.Accept()
	if err != nil {
		return false, "", err
	}
	defer peer.Close()
	holds, holdsErr := peercred.HoldsPort(os.Getpid(), port)
	sameErr := peercred.SameUser(peer)
	msg := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	doc, err := json.Marshal(map[string]any{
		"port": port, "pid": os.Getpid(),
		"holds_port": holds, "holds_port_error": msg(holdsErr),
		"same_user_error": msg(sameErr),
	})
	if err != nil {
		return false, "", fmt.Errorf("encoding the result: %w", err)
	}
	return holds && holdsErr == nil && sameErr == nil, string(doc), nil
}
