// Package filewatch tells when a file that the exporter reads again on
// change (the API key file, the jobs file) has changed, by polling: a
// version of a file is its identity (os.SameFile), size, modification time
// and mode, so an in-place rewrite and a replacement by rename (as
// Kubernetes secret volumes and editors do) are both seen.
//
// It neither logs nor decides what to do about a bad file: its users keep
// their last good content and report problems in their own words.
package filewatch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is returned by Read for a directory, a device, a pipe or
// any other file that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by Read for a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

// File is one watched file: its path and the version last recorded with
// Mark. A File is not safe for concurrent use; its users hold their own
// lock.
type File struct {
	path string
	seen fs.FileInfo // the version last marked; nil before the first Mark
}

// New returns a File for path with no version recorded yet, so Changed
// reports true until the first Mark.
func New(path string) *File {
	return &File{path: path}
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Seen returns the version last recorded with Mark, or nil.
func (f *File) Seen() fs.FileInfo { return f.seen }

// Changed stats the file and reports whether it is not the version last
// recorded with Mark: another file stands at the path, or its size,
// modification time or mode differ. It is true before the first Mark. The
// error is os.Stat's (a *fs.PathError), for example when the file was
// deleted.
func (f *File) Changed() (bool, error) {
	info, err := os.Stat(f.path)
	if err != nil {
		return false, err
	}
	return !Same(f.seen, info), nil
}

// Mark records info, as returned by Read, as the version last read.
func (f *File) Mark(info fs.FileInfo) { f.seen = info }

// Read reads the whole file, at most limit bytes, and returns its content
// with the version that was read: the FileInfo is taken from the open
// file, so it describes exactly the content returned even when the file is
// replaced meanwhile. Read does not Mark. A file that is not a regular file
// gives ErrNotRegular and one larger than limit ErrTooLarge (neither is
// read); errors of the file system are *fs.PathError values.
func (f *File) Read(limit int64) ([]byte, fs.FileInfo, error) {
	if limit < 0 {
		limit = 0
	}
	// A FIFO, socket or device is refused before it is opened: opening a
	// FIFO with no writer blocks forever (and a signal cannot end it).
	if info, err := os.Stat(f.path); err != nil {
		return nil, nil, err
	} else if !info.Mode().IsRegular() {
		return nil, nil, ErrNotRegular
	}
	// Replaced by a FIFO between the Stat and the open: the open does not
	// block where the platform has O_NONBLOCK, and the Stat of the open
	// file refuses it.
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
	// The file may grow between Stat and the read: read one byte past the
	// limit to notice.
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > limit {
		return nil, nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return b, info, nil
}

// Same reports whether a and b describe the same version of a file: the
// same file (os.SameFile) with the same size, modification time and mode.
// A nil FileInfo is the same as nothing.
func Same(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return false
	}
	return os.SameFile(a, b) && a.Size() == b.Size() &&
		a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode()
}
