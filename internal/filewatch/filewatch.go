// Package filewatch polls files for rewrites and replacements by rename.
package filewatch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors of Read.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// File is a watched file and the version last recorded with Mark.
type File struct {
	path string
	seen fs.FileInfo
}

// New returns a File for path; Changed is true until the first Mark.
func New(path string) *File {
	return &File{path: path}
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Seen returns the version last recorded with Mark, or nil.
func (f *File) Seen() fs.FileInfo { return f.seen }

// Changed reports whether the file is not the version last marked: another
// file, or another size, modification time or mode.
func (f *File) Changed() (bool, error) {
	info, err := os.Stat(f.path)
	if err != nil {
		return false, err
	}
	s := f.seen
	return s == nil || !os.SameFile(s, info) || s.Size() != info.Size() ||
		!s.ModTime().Equal(info.ModTime()) || s.Mode() != info.Mode(), nil
}

// Mark records info, as returned by Read, as the version last read.
func (f *File) Mark(info fs.FileInfo) { f.seen = info }

// Read returns at most limit bytes and the version they were read from.
func (f *File) Read(limit int64) ([]byte, fs.FileInfo, error) {
	// Opening a FIFO with no writer would block forever.
	if info, err := os.Stat(f.path); err != nil {
		return nil, nil, err
	} else if !info.Mode().IsRegular() {
		return nil, nil, ErrNotRegular
	}
	fh, err := os.OpenFile(f.path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, ErrNotRegular
	}
	if info.Size() > limit {
		return nil, nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	// One byte past the limit notices a file that grew since the Stat.
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > limit {
		return nil, nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return b, info, nil
}
