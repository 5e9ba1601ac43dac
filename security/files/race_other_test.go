//go:build !linux

package files

import "errors"

func exchange(a, b string) error { return errors.ErrUnsupported }
