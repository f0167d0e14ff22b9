//go:build unix

package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhoCannotRead checks the explanation of a permission error: the
// process's uid, and the file's owner and mode. (The error itself cannot be
// provoked when the tests run as root, so the explanation is tested on its
// own.)
func TestWhoCannotRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := whoCannotRead(p)
	for _, want := range []string{
		fmt.Sprintf("runs as uid %d", os.Getuid()),
		fmt.Sprintf("owned by uid %d", os.Getuid()),
		"mode -rw-------",
		fmt.Sprintf("chown %d %s", os.Getuid(), p),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if got := whoCannotRead(filepath.Join(p, "below-a-file")); !strings.Contains(got, "cannot enter the directory "+p) {
		t.Errorf("unreachable file: %q", got)
	}
}

// TestFileKeyPermissionDenied provokes the error for real when the tests do
// not run as root.
func TestFileKeyPermissionDenied(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads every file; TestWhoCannotRead covers the message")
	}
	p := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(p, []byte("mint_abcdef0123456789"), 0o000); err != nil {
		t.Fatal(err)
	}
	_, err := NewFileKey(p)
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), fmt.Sprintf("uid %d", os.Getuid())) {
		t.Fatalf("error %v", err)
	}
}

// TestFileKeyNotifiesOnceAndRecovers checks the rotation reporting: one
// notification per distinct failure, one on recovery, and the counter.
func TestFileKeyNotifiesOnceAndRecovers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "api-key")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p+".new", []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	write("mint_first0123456789")
	k, err := NewFileKey(p)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	k.Notify(func(err error) { events = append(events, fmt.Sprint(err)) })
	write("garbage")
	for range 3 {
		if key, _ := k.Key(); key != "mint_first0123456789" {
			t.Fatalf("key %q, want the previous one", key)
		}
	}
	if k.Status().LastError == nil || k.Status().Failures != 1 || len(events) != 1 || strings.Contains(events[0], "garbage") {
		t.Fatalf("after a bad rotation: last error %v, failures %d, events %q", k.Status().LastError, k.Status().Failures, events)
	}
	write("mint_second0123456789")
	if key, _ := k.Key(); key != "mint_second0123456789" {
		t.Fatalf("key %q after the fix", key)
	}
	if k.Status().LastError != nil || k.Status().Failures != 1 || len(events) != 2 || events[1] != "<nil>" {
		t.Fatalf("after the fix: last error %v, failures %d, events %q", k.Status().LastError, k.Status().Failures, events)
	}
}
