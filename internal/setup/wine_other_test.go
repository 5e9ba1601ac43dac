//go:build !windows

package setup

func underWine() bool { return false }
