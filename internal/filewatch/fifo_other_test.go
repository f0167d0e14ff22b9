//go:build !unix

package filewatch

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
