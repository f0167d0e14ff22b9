package backfill_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestOutputMustBeARegularFile: --output (and its journal) that is a
// device, a FIFO, a directory, or the API key file is refused before any
// request is sent, even with --force.
func TestOutputMustBeARegularFile(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte(mintlifytest.DefaultKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(keyFile, link); err != nil {
		t.Fatal(err)
	}
	// A link to /dev/null: Stat follows it to the device, and a
	// regression would replace the link, never the device itself.
	devnull := filepath.Join(dir, "devnull")
	if err := os.Symlink(os.DevNull, devnull); err != nil {
		t.Fatal(err)
	}
	journalDir := filepath.Join(dir, "out.om")
	if err := os.Mkdir(backfill.JournalPath(journalDir), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ output, want string }{
		{devnull, "not a regular file"},
		{fifo, "not a regular file"},
		{dir, "is a directory"},
		{keyFile, "--mintlify.api-key-file"},
		{link, "--mintlify.api-key-file"},
		{journalDir, "is a directory"},
	} {
		cfg := h.config(day(0), day(3), tc.output)
		cfg.Force = true
		cfg.Protected = map[string]string{"--mintlify.api-key-file": keyFile}
		res, err := h.run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || backfill.ExitCode(res, err) != backfill.ExitError {
			t.Errorf("--output=%s --force: %v, want an error with %q", tc.output, err, tc.want)
		}
		if n := h.srv.CountRequests(""); n != 0 {
			t.Errorf("--output=%s: %d requests sent before the output was refused", tc.output, n)
		}
	}
	if b, _ := os.ReadFile(keyFile); string(b) != mintlifytest.DefaultKey+"\n" {
		t.Error("the key file was changed")
	}
}

// TestRefusedCallerStops: a 403 (allowlist or scope) and a 404 (unknown
// project) stop the run at once with the advice, like a 401; no other day
// is tried.
func TestRefusedCallerStops(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{403, "allowlist"},
		{404, "--mintlify.project-id"},
		{401, "expired or been revoked"},
	} {
		h := newHarness(t)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: tc.status})
		res, err := h.run(context.Background(), h.config(day(0), day(7), h.path("history.om")))
		if code := backfill.ExitCode(res, err); code != backfill.ExitError || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--resume") {
			t.Errorf("HTTP %d: exit %d, %v: want %d and an error with %q", tc.status, code, err, backfill.ExitError, tc.want)
		}
		if n := h.srv.CountRequests(mintlifytest.EndpointVisitors); n != 1 {
			t.Errorf("HTTP %d: %d requests, want 1: the run goes on after the API refused it", tc.status, n)
		}
	}
}
