//go:build !windows

package main

import "errors"

func check(string) (bool, string, error) {
	return false, "", errors.New("probe asks Windows; build it with GOOS=windows")
}

func daclKept(string) (bool, string, error) {
	return false, "", errors.New("probe asks Windows; build it with GOOS=windows")
}

func renameOpen(string) (bool, string, error) {
	return false, "", errors.New("probe asks Windows; build it with GOOS=windows")
}
