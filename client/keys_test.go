package client_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

const testAdminKey = "mint_0123456789abcdef0123456789abcdef"

func TestCheckKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     string
		wantErr string // substring; "" means valid
		noKey   bool
	}{
		{name: "admin", key: testAdminKey},
		{name: "empty", key: "", noKey: true, wantErr: "no API key"},
		{name: "assistant", key: "mint_dsc_abcdef123456", wantErr: "assistant API key (mint_dsc_); the exporter needs an admin API key (mint_ followed by neither dsc_ nor us_) from the dashboard's API keys page"},
		{name: "index", key: "mint_us_abcdef123456", wantErr: "index API key (mint_us_)"},
		{name: "no prefix", key: "sk_live_abcdef123456", wantErr: "not a Mintlify admin API key: admin keys start with mint_"},
		{name: "upper-case prefix", key: "MINT_abcdef123456", wantErr: "admin keys start with mint_"},
		{name: "prefix only", key: "mint_", wantErr: "nothing follows"},
		{name: "inner space", key: "mint_abc def", wantErr: "byte 8"},
		{name: "newline", key: "mint_abc\nX-Evil: 1", wantErr: "control"},
		{name: "untrimmed", key: " " + testAdminKey, wantErr: "admin keys start with mint_"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := client.CheckKey(tc.key)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckKey: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckKey accepted %q", tc.key)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			if errors.Is(err, client.ErrNoKey) != tc.noKey {
				t.Errorf("errors.Is(err, ErrNoKey) = %v, want %v", !tc.noKey, tc.noKey)
			}
			if len(tc.key) > len("mint_") && strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q contains the key", err)
			}
		})
	}
}

func TestStaticKey(t *testing.T) {
	ks, err := client.StaticKey("  \t" + testAdminKey + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ks.Key(); err != nil || got != testAdminKey {
		t.Fatalf("Key() = %q, %v; want trimmed key", got, err)
	}
	for _, bad := range []string{"", "   ", "mint_dsc_x1", "nope"} {
		if _, err := client.StaticKey(bad); err == nil {
			t.Errorf("StaticKey(%q) accepted", bad)
		}
	}
	if _, err := client.StaticKey(" \n"); !errors.Is(err, client.ErrNoKey) {
		t.Errorf("StaticKey of white space: %v, want ErrNoKey", err)
	}
}

func writeKeyFile(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestFileKeyRereadsOnChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	first := "mint_first0000000000000000000000000"
	second := "mint_second000000000000000000000000"
	third := "mint_third0000000000000000000000000"
	writeKeyFile(t, path, first+"\n", t0)

	k, err := client.NewFileKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if k.Path() != path {
		t.Errorf("Path() = %q", k.Path())
	}
	if k.Status().WorldReadable {
		t.Error("0600 file reported world-readable")
	}
	mustKey := func(want string) {
		t.Helper()
		got, err := k.Key()
		if err != nil || got != want {
			t.Fatalf("Key() = %q, %v; want %q", got, err, want)
		}
	}
	mustKey(first)

	// Rewritten in place, same size, new modification time.
	writeKeyFile(t, path, second+"\n", t0.Add(time.Second))
	mustKey(second)
	if k.Status().LastError != nil {
		t.Errorf("Status().LastError = %v after a good read", k.Status().LastError)
	}

	// Replaced by rename (as Kubernetes secret volumes do), same size and
	// same modification time: the file's identity changed.
	tmp := filepath.Join(dir, "key.new")
	writeKeyFile(t, tmp, third+"\n", t0.Add(time.Second))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	mustKey(third)

	// A broken rewrite keeps the last good key and reports why.
	writeKeyFile(t, path, "mint_dsc_oops\n", t0.Add(2*time.Second))
	mustKey(third)
	if err := k.Status().LastError; err == nil || !strings.Contains(err.Error(), "assistant") || !strings.Contains(err.Error(), path) {
		t.Errorf("Status().LastError = %v, want the assistant-key complaint naming the path", err)
	}
	writeKeyFile(t, path, "\n", t0.Add(3*time.Second))
	mustKey(third)
	if err := k.Status().LastError; err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Status().LastError = %v, want empty-file complaint", err)
	}

	// Removed: last good key, error names the path.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mustKey(third)
	if err := k.Status().LastError; err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Status().LastError = %v, want it to name %s", err, path)
	}

	// Back with a good key: used, error cleared.
	writeKeyFile(t, path, first, t0.Add(4*time.Second))
	mustKey(first)
	if k.Status().LastError != nil {
		t.Errorf("Status().LastError = %v", k.Status().LastError)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	writeKeyFile(t, path, second, t0.Add(5*time.Second))
	mustKey(second)
	if !k.Status().WorldReadable {
		t.Error("0644 file not reported world-readable")
	}
}

func TestNewFileKeyErrors(t *testing.T) {
	dir := t.TempDir()
	secret := "mint_dsc_supersecret_value_123"
	for _, tc := range []struct {
		name    string
		setup   func(path string)
		wantErr string
	}{
		{"missing", func(string) {}, "no such file"},
		{"empty", func(p string) { writeKeyFile(t, p, " \n\t", time.Now()) }, "is empty"},
		{"assistant key", func(p string) { writeKeyFile(t, p, secret, time.Now()) }, "assistant API key"},
		{"not a key", func(p string) { writeKeyFile(t, p, "hunter2hunter2", time.Now()) }, "admin keys start with mint_"},
		{"directory", func(p string) { os.Mkdir(p, 0o700) }, "not a regular file"},
		{"too large", func(p string) { writeKeyFile(t, p, "mint_"+strings.Repeat("a", 5000), time.Now()) }, "too large"},
		{"unreadable", func(p string) {
			writeKeyFile(t, p, testAdminKey, time.Now())
			os.Chmod(p, 0)
		}, "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			tc.setup(path)
			if tc.name == "unreadable" && os.Geteuid() == 0 {
				t.Skip("root reads any file")
			}
			_, err := client.NewFileKey(path)
			if err == nil {
				t.Fatal("NewFileKey succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the path", msg)
			}
			if !strings.Contains(msg, tc.wantErr) {
				t.Errorf("error %q does not contain %q", msg, tc.wantErr)
			}
			if strings.Contains(msg, "supersecret") || strings.Contains(msg, "hunter2") {
				t.Errorf("error %q contains the file's content", msg)
			}
		})
	}
}
