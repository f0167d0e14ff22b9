package filewatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// write writes content with a given modification time, so that a change
// (or its absence) does not depend on the file system's timestamp
// granularity.
func write(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// readAndMark reads f, checks its content and marks the version read.
func readAndMark(t *testing.T, f *File, want string) {
	t.Helper()
	b, info, err := f.Read(1 << 10)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if string(b) != want {
		t.Fatalf("Read = %q, want %q", b, want)
	}
	f.Mark(info)
}

func changed(t *testing.T, f *File) bool {
	t.Helper()
	c, err := f.Changed()
	if err != nil {
		t.Fatalf("Changed: %v", err)
	}
	return c
}

func TestChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "watched")
	write(t, path, "one\n", t0)
	f := New(path)
	if f.Path() != path {
		t.Errorf("Path() = %q", f.Path())
	}
	if f.Seen() != nil {
		t.Error("Seen() before the first Mark is not nil")
	}
	if !changed(t, f) {
		t.Fatal("a file never read is not reported changed")
	}
	readAndMark(t, f, "one\n")

	t.Run("unchanged", func(t *testing.T) {
		for range 3 {
			if changed(t, f) {
				t.Fatal("an untouched file is reported changed")
			}
		}
		// Read alone records nothing.
		if _, _, err := f.Read(1 << 10); err != nil {
			t.Fatal(err)
		}
		write(t, path, "ONE\n", t0.Add(time.Second))
		if !changed(t, f) {
			t.Fatal("a rewritten file is not reported changed")
		}
		readAndMark(t, f, "ONE\n")
	})

	t.Run("modification", func(t *testing.T) {
		// Same size, new modification time.
		write(t, path, "two\n", t0.Add(2*time.Second))
		if !changed(t, f) {
			t.Fatal("a file rewritten in place is not reported changed")
		}
		readAndMark(t, f, "two\n")
		// Same modification time, new size.
		write(t, path, "three\n", t0.Add(2*time.Second))
		if !changed(t, f) {
			t.Fatal("a file that grew is not reported changed")
		}
		readAndMark(t, f, "three\n")
		// Mode only.
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && !changed(t, f) {
			t.Fatal("a chmod is not reported as a change")
		}
		readAndMark(t, f, "three\n")
		if changed(t, f) {
			t.Fatal("reported changed after the new version was marked")
		}
	})

	t.Run("rename-style replacement", func(t *testing.T) {
		// The replacement has the same size, modification time and mode
		// as the version marked: only its identity tells it apart.
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		write(t, path, "four\n", t0.Add(3*time.Second))
		readAndMark(t, f, "four\n")
		tmp := filepath.Join(dir, "watched.new")
		write(t, tmp, "FOUR\n", t0.Add(3*time.Second))
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if !changed(t, f) {
			t.Fatal("a file replaced by rename is not reported changed")
		}
		readAndMark(t, f, "FOUR\n")
		if changed(t, f) {
			t.Fatal("reported changed after the replacement was marked")
		}
	})

	t.Run("deletion", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		c, err := f.Changed()
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Changed of a deleted file = %v, %v; want ErrNotExist", c, err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the path", err)
		}
		if _, _, err := f.Read(1 << 10); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Read of a deleted file: %v, want ErrNotExist", err)
		}
		if _, err := f.Changed(); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Changed asked again: %v, want ErrNotExist", err)
		}
		// Created again (a new modification time, as any writer gives).
		write(t, path, "five\n", t0.Add(4*time.Second))
		if !changed(t, f) {
			t.Fatal("a file created again is not reported changed")
		}
		readAndMark(t, f, "five\n")
	})
}

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	f := New(dir)
	if _, _, err := f.Read(1 << 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read of a directory: %v, want ErrNotRegular", err)
	}

	path := filepath.Join(dir, "big")
	write(t, path, strings.Repeat("x", 11), t0)
	f = New(path)
	if _, _, err := f.Read(10); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "10 bytes") {
		t.Errorf("Read of 11 bytes with limit 10: %v, want ErrTooLarge naming the limit", err)
	}
	if b, _, err := f.Read(11); err != nil || len(b) != 11 {
		t.Errorf("Read of 11 bytes with limit 11 = %d bytes, %v", len(b), err)
	}
	if _, _, err := f.Read(-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read with a negative limit: %v, want ErrTooLarge", err)
	}

	empty := filepath.Join(dir, "empty")
	write(t, empty, "", t0)
	if b, info, err := New(empty).Read(0); err != nil || len(b) != 0 || info == nil {
		t.Errorf("Read of an empty file = %q, %v, %v", b, info, err)
	}

	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "fifo")
		if err := mkfifo(fifo); err == nil {
			// With no writer: opening it would block forever, so it
			// must be refused without being opened.
			done := make(chan error, 1)
			go func() {
				_, _, err := New(fifo).Read(1 << 10)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) {
					t.Errorf("Read of a FIFO: %v, want ErrNotRegular", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Read of a FIFO without a writer blocks")
			}
		}
	}
}
