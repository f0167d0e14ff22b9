package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

// TestEveryFileCheckedBeforeOpening: a FIFO with no writer, or a file
// larger than its reader takes (sparse: it costs no disk), in place of any
// file the exporter reads (web configuration and the TLS files it names,
// remediation rules and token, jobs file, cache file, budget journal,
// remediation ledger) stops the start at once with one line naming the
// flag, instead of hanging (a FIFO's open blocks and SIGTERM cannot end
// it) or reading it whole.
func TestEveryFileCheckedBeforeOpening(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sparse := func(name string, size int64) string {
		p := write(name, "")
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rules := write("rules.yml", "rules:\n  - name: r\n    match: {alertname: A}\n    project: docs\n    key: k\n    prompt: p\n")
	tlsFIFO := write("web-tls.yml", "tls_server_config:\n  cert_file: fifo\n  key_file: fifo\n")
	// A cache file whose journal or ledger is a FIFO, or too large.
	cacheWith := func(name, suffix string, size int64) string {
		cache := filepath.Join(dir, name, "state.json")
		if err := os.Mkdir(filepath.Dir(cache), 0o700); err != nil {
			t.Fatal(err)
		}
		if size < 0 {
			if err := syscall.Mkfifo(cache+suffix, 0o600); err != nil {
				t.Fatal(err)
			}
		} else {
			sparse(filepath.Join(name, "state.json"+suffix), size)
		}
		return cache
	}
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	remediationFlags := []string{"--remediation.config=" + rules}
	for _, tc := range []struct {
		name string
		args []string
		flag string
		want string
	}{
		{"web config FIFO", []string{"--web.config.file=" + fifo}, "--web.config.file", "regular file"},
		{"TLS certificate FIFO", []string{"--web.config.file=" + tlsFIFO}, "cert_file", "regular file"},
		{"web config too large", []string{"--web.config.file=" + sparse("web-big.yml", 2<<20)}, "--web.config.file", "larger than"},
		{"remediation config FIFO", []string{"--remediation.config=" + fifo}, "--remediation.config", "regular file"},
		{"token file FIFO", append([]string{"--remediation.token-file=" + fifo}, remediationFlags...), "--remediation.token-file", "regular file"},
		{"jobs file too large", []string{"--collector.jobs", "--jobs.file=" + sparse("jobs-big", 2<<20)}, "--jobs.file", "larger than"},
		{"remediation ledger FIFO", append([]string{"--cache.file=" + cacheWith("ledger-fifo", ".remediation", -1)}, remediationFlags...), "--cache.file", "regular file"},
		{"remediation ledger too large", append([]string{"--cache.file=" + cacheWith("ledger-big", ".remediation", 17<<20)}, remediationFlags...), "--cache.file", "larger than"},
		{"budget journal FIFO", []string{"--cache.file=" + cacheWith("journal-fifo", ".ledger", -1)}, "--cache.file", "regular file"},
		{"budget journal too large", []string{"--cache.file=" + cacheWith("journal-big", ".ledger", 5<<20)}, "--cache.file", "larger than"},
		{"cache file of 500 MB", []string{"--cache.file=" + cacheWith("cache-big", "", 500<<20)}, "--cache.file", "larger than 64 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan runOutput, 1)
			go func() { done <- runCtx(t, cancelled(), ok, append([]string{loopback}, tc.args...)...) }()
			select {
			case o := <-done:
				lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
				last := lines[len(lines)-1]
				if o.code != 1 || !strings.Contains(last, tc.flag) || !strings.Contains(last, tc.want) || len(lines) != 1 {
					t.Errorf("exit %d, want 1 and one line naming %s and %q:\n%s", o.code, tc.flag, tc.want, o.stderr)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("start-up hangs")
			}
		})
	}
}

// TestTokenAndBasicAuthRefusedTogether: with basic_auth_users in the web
// configuration, Alertmanager's one Authorization header is basic auth,
// so a bearer token could never be checked: every webhook call was 401
// and the start said nothing. The combination is refused at start, for
// a dry run too.
func TestTokenAndBasicAuthRefusedTogether(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// "secret", hashed with bcrypt (cost 4).
	basicAuth := write("web.yml", "basic_auth_users:\n  alertmanager: $2y$04$SbrHxDGOb6M6xOVtMrzvbuYudpI/hyOG0umz1hHd/tsGzgvDWmkEO\n")
	token := write("token", "0123456789abcdef0123\n")
	for _, dry := range []string{"false", "true"} {
		rules := write("rules-"+dry+".yml", "dry_run: "+dry+"\nrules:\n  - name: r\n    match: {alertname: A}\n    project: p\n    key: k\n    prompt: p\n")
		o := runCtx(t, cancelled(), nil, loopback, "--demo", "--remediation.config="+rules, "--remediation.token-file="+token,
			"--web.config.file="+basicAuth, "--cache.file="+filepath.Join(dir, "cache-"+dry))
		lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
		if o.code != 1 || len(lines) != 1 || !strings.Contains(o.stderr, "--remediation.token-file") || !strings.Contains(o.stderr, "basic_auth_users") {
			t.Errorf("dry_run %s: exit %d, want 1 and one line naming both:\n%s", dry, o.code, o.stderr)
		}
	}
}

// TestTokenThatHoldsTheKeyRefused: a webhook token file that holds the
// API key is refused at start, behind a UTF-8 byte order mark or any
// prefix too, and compared with the key in use (which need not look like
// a key); the error never shows the key.
func TestTokenThatHoldsTheKeyRefused(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(rules, []byte("rules:\n  - name: r\n    match: {alertname: A}\n    project: docs\n    key: k\n    prompt: p\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for i, tc := range []struct{ name, token, want string }{
		{"the key", testKey + "\n", "looks like a Mintlify API key"},
		{"a byte order mark and the key", "\uFEFF" + testKey + "\n", "looks like a Mintlify API key"},
		{"a prefix and the key", "token-" + testKey, "looks like a Mintlify API key"},
		{"a byte order mark and a token", "\uFEFF0123456789abcdef0123", "printable ASCII"},
	} {
		token := filepath.Join(dir, "token"+strconv.Itoa(i))
		if err := os.WriteFile(token, []byte(tc.token), 0o600); err != nil {
			t.Fatal(err)
		}
		o := runCtx(t, cancelled(), ok, loopback, "--remediation.config="+rules, "--remediation.token-file="+token)
		if o.code != 1 || !strings.Contains(o.stderr, "--remediation.token-file") || !strings.Contains(o.stderr, tc.want) || strings.Contains(o.stderr, testKey[5:]) {
			t.Errorf("%s: exit %d, want 1 and one line saying %q without the key:\n%s", tc.name, o.code, tc.want, o.stderr)
		}
	}
}

// keyOf is a client.KeySource of a fixed key.
type keyOf string

func (k keyOf) Key() (string, error) { return string(k), nil }

// TestTokenComparedWithTheKeyInUse: whatever the key in use looks like,
// a token that holds it is refused without showing it.
func TestTokenComparedWithTheKeyInUse(t *testing.T) {
	const key = "an-unusual-key-0123456789"
	rc := &remediation.Options{Token: "prefix" + key}
	if err := checkTokenIsNotKey(rc, keyOf(key), "/t"); err == nil || !strings.Contains(err.Error(), "--remediation.token-file=/t") || strings.Contains(err.Error(), key) {
		t.Errorf("a token holding the key in use: %v", err)
	}
	if err := checkTokenIsNotKey(&remediation.Options{Token: "0123456789abcdef0123"}, keyOf(key), "/t"); err != nil {
		t.Errorf("a token of its own: %v", err)
	}
}

// TestProjectListWithAnEmptyItemRefused: MINTLIFY_PROJECT_ID="a,,b" (an
// unset variable between two commas) is refused naming the variable, as
// an empty --mintlify.project-id is; spaces around the commas are fine.
func TestProjectListWithAnEmptyItemRefused(t *testing.T) {
	for env, want := range map[string]int{"a,,b": 1, "a,b,": 1, ",a": 1, "a, b": 0, "a b\nc": 0, "a,b": 0} {
		o := runCtx(t, cancelled(), map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": env}, loopback, "--mintlify.api-url=http://127.0.0.1:1")
		if o.code != want || want == 1 && (!strings.Contains(o.stderr, "MINTLIFY_PROJECT_ID") || !strings.Contains(o.stderr, "empty")) {
			t.Errorf("MINTLIFY_PROJECT_ID=%q: exit %d, want %d (and an error naming the variable):\n%s", env, o.code, want, o.stderr)
		}
	}
}

// TestPlainHTTPToAnotherHostWarned: an API address in plain http to a host
// that is not a loopback address sends the key in clear text: the start
// warns; https and loopback addresses do not.
func TestPlainHTTPToAnotherHostWarned(t *testing.T) {
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for url, warn := range map[string]bool{
		"http://192.0.2.10:8080":  true,
		"http://api.example.com":  true,
		"http://127.0.0.2:1":      false,
		"http://localhost:1":      false,
		"http://[::1]:1":          false,
		"https://api.example.com": false,
	} {
		o := runCtx(t, cancelled(), ok, loopback, "--mintlify.api-url="+url)
		if got := strings.Contains(o.stderr, "travels in clear text"); got != warn || o.code != 0 {
			t.Errorf("%s: exit %d, warning %t, want %t:\n%s", url, o.code, got, warn, o.stderr)
		}
	}
}

// TestJobWatcherFlagsWithRemediation: the remediation webhook's jobs are
// watched, so --collector.jobs with it needs no --jobs.* flag, and
// --jobs.poll-interval (which paces that watcher) is accepted without
// --collector.jobs; without the webhook both are refused as before.
func TestJobWatcherFlagsWithRemediation(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(rules, []byte("rules:\n  - name: r\n    match: {alertname: A}\n    project: docs\n    key: k\n    prompt: p\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	api := "--mintlify.api-url=http://127.0.0.1:1"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--collector.jobs", "--remediation.config=" + rules}, 0, ""},
		{[]string{"--jobs.poll-interval=30s", "--remediation.config=" + rules}, 0, ""},
		{[]string{"--collector.jobs"}, 1, "nothing to watch"},
		{[]string{"--jobs.poll-interval=30s"}, 1, "add --collector.jobs"},
	} {
		o := runCtx(t, cancelled(), ok, append([]string{loopback, api}, tc.args...)...)
		if o.code != tc.code || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d and %q:\n%s", tc.args, o.code, tc.code, tc.want, o.stderr)
		}
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

// TestRemediationLedgerBesideTheCacheFile: the webhook's ledger is
// --cache.file's name with remediation.LedgerSuffix, so jobs it created
// are remembered across restarts; without --cache.file a dry run keeps it
// in memory.
func TestRemediationLedgerBesideTheCacheFile(t *testing.T) {
	dir := t.TempDir()
	rules, token := filepath.Join(dir, "rules.yml"), filepath.Join(dir, "token")
	for name, data := range map[string]string{
		rules: "rules:\n  - name: r\n    match: {alertname: A}\n    project: docs\n    key: k\n    prompt: p\n",
		token: "a-token-of-the-webhook\n",
	} {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(dir, "cache.json")
	f := &flags{}
	if _, err := newApp(f).Parse([]string{"--demo", "--remediation.config=" + rules, "--remediation.token-file=" + token,
		"--cache.file=" + cache}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config(f, log.NewNopLogger())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Remediation == nil {
		t.Fatal("no remediation options")
	}
	if got, want := cfg.Remediation.LedgerPath, cache+remediation.LedgerSuffix; got != want {
		t.Errorf("the ledger at %q, want %q", got, want)
	}
}
