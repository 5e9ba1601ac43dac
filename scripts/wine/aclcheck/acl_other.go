//go:build !windows

package main

import "errors"

func check(string) (bool, string, error) {
	return false, "", errors.New("aclcheck reads Windows ACLs; build it with GOOS=windows")
}

func probe(string) (bool, string, error) {
	return false, "", errors.New("aclcheck reads Windows ACLs; build it with GOOS=windows")
}
