//go:build !linux && !windows

package peercred

import "net/netip"

// No reliable way without cgo: see the package doc.

func sameUser(netip.AddrPort, netip.AddrPort) error { return ErrUnsupported }

func holdsPort(int, uint16) (bool, error) { return false, ErrUnsupported }

func listenersOn(uint16) ([]Squatter, error) { return nil, ErrUnsupported }
