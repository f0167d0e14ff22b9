package cli

// Issue 19: flags and files an attacker (or a typo) could use to stop the
// exporter or make it misbehave.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIntegerFlagsParsedAsIntegers: an integer flag takes digits only, and
// a number too large for an int is refused as such, not wrapped around.
func TestIntegerFlagsParsedAsIntegers(t *testing.T) {
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for _, tc := range []struct{ arg, want string }{
		{"--mintlify.requests-per-hour=1.9", "not a whole number"},
		{"--mintlify.requests-per-hour=1e2", "not a whole number"},
		{"--web.max-requests=2.5", "not a whole number"},
		{"--analytics.page-size=99999999999999999999", "out of range"},
		{"--mintlify.requests-per-hour=9223372036854775807", "above the API's limit"},
	} {
		o := runCtx(t, cancelled(), ok, loopback, tc.arg)
		flag, _, _ := strings.Cut(tc.arg, "=")
		if tc.want == "above the API's limit" { // accepted, with the warning
			if o.code != 0 || !strings.Contains(o.stderr, "9223372036854775807") || strings.Contains(o.stderr, "-9223372036854775808") {
				t.Errorf("%s: exit %d:\n%s", tc.arg, o.code, o.stderr)
			}
			continue
		}
		if o.code != 1 || !strings.Contains(o.stderr, flag) || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%s: exit %d, want 1 and an error naming %s, %q:\n%s", tc.arg, o.code, flag, tc.want, o.stderr)
		}
	}
}

// TestPollIntervalMinimum: job reads are outside the request budget, so
// --jobs.poll-interval below a second is refused.
func TestPollIntervalMinimum(t *testing.T) {
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for _, v := range []string{"1ns", "1ms", "999ms"} {
		o := runCtx(t, cancelled(), ok, loopback, "--collector.jobs", "--jobs.id=j1", "--jobs.poll-interval="+v)
		if o.code != 1 || !strings.Contains(o.stderr, "--jobs.poll-interval") || !strings.Contains(o.stderr, "from 1s") {
			t.Errorf("--jobs.poll-interval=%s: exit %d:\n%s", v, o.code, o.stderr)
		}
	}
	o := runCtx(t, cancelled(), ok, loopback, "--collector.jobs", "--jobs.id=j1", "--jobs.poll-interval=1s")
	if o.code != 0 {
		t.Errorf("--jobs.poll-interval=1s: exit %d:\n%s", o.code, o.stderr)
	}
}

// TestFIFOsRefusedAtStart: a FIFO with no writer as the key file, the
// jobs file or the cache file is refused at once; opening it would hang
// start-up beyond the reach of SIGTERM.
func TestFIFOsRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		flag string
	}{
		{map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + fifo}, "--mintlify.api-key-file"},
		{ok, []string{"--collector.jobs", "--jobs.file=" + fifo}, "--jobs.file"},
		{ok, []string{"--cache.file=" + fifo}, "--cache.file"},
	} {
		done := make(chan runOutput, 1)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		go func() { done <- runCtx(t, ctx, tc.env, append([]string{loopback}, tc.args...)...) }()
		select {
		case o := <-done:
			if o.code != 1 || !strings.Contains(o.stderr, tc.flag) || !strings.Contains(o.stderr, "regular file") {
				t.Errorf("%s=FIFO: exit %d, want 1 and an error naming the flag:\n%s", tc.flag, o.code, o.stderr)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s=FIFO: start-up hangs", tc.flag)
		}
	}
}

// TestBackfillRefusesTheKeyFile: backfill --output naming the API key
// file is refused before anything is sent, even with --force.
func TestBackfillRefusesTheKeyFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte(testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := runCtx(t, context.Background(), map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, "backfill",
		"--mintlify.api-url=http://127.0.0.1:1", "--mintlify.api-key-file="+keyFile,
		"--from=2025-01-01", "--to=2025-01-02", "--output="+keyFile, "--force")
	if o.code != 1 || !strings.Contains(o.stderr, "--output") || !strings.Contains(o.stderr, "--mintlify.api-key-file") {
		t.Errorf("exit %d, want 1 and an error naming --output and the key file:\n%s", o.code, o.stderr)
	}
	if b, _ := os.ReadFile(keyFile); string(b) != testKey+"\n" {
		t.Error("the key file was replaced")
	}
}
