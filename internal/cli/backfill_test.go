package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// TestBackfillCommand runs the command's wiring against the fake: the flags
// reach the backfill, --mintlify.requests-per-hour defaults to 40 unless
// given, a dry run sends nothing and needs no key, --help exits 0.
func TestBackfillCommand(t *testing.T) {
	yesterday := time.Now().UTC().AddDate(0, 0, -1)
	srv := apitest.Fake(t, mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 3, Paths: 10, Days: 10, End: yesterday,
	})))
	env := map[string]string{"MINTLIFY_API_KEY": mintlifytest.DefaultKey, "MINTLIFY_PROJECT_ID": "docs"}
	dir := t.TempDir()
	out := filepath.Join(dir, "history.om")
	from := yesterday.AddDate(0, 0, -2).Format(time.DateOnly)
	api := "--mintlify.api-url=" + srv.URL()

	o := runMain(t, env, "backfill", "--help")
	if o.code != 0 || !strings.Contains(o.stdout, "backfill.pages") || !strings.Contains(o.stdout, "add up to 100 or less") {
		t.Errorf("backfill --help: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	o = runMain(t, map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, "backfill", api, "--from="+from, "--output="+out, "--dry-run")
	if o.code != 0 || !strings.Contains(o.stdout, "cost: 12 requests (3 days × 4 sources × 1 project)") || !strings.Contains(o.stdout, "--mintlify.requests-per-hour=40;") {
		t.Errorf("dry run without a key: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if n := srv.CountRequests(""); n != 0 {
		t.Errorf("the dry run sent %d requests", n)
	}

	o = runMain(t, env, "backfill", api, "--from="+from, "--output="+out, "--mintlify.requests-per-hour=25", "--backfill.pages")
	assertNoSecret(t, o, mintlifytest.DefaultKey)
	if o.code != 0 || !strings.Contains(o.stdout, "--mintlify.requests-per-hour=25;") {
		t.Fatalf("backfill: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `mintlify_page_visitors_deduplicated{job="mintlify",project="docs",window="1d",path="`) || !strings.HasSuffix(string(data), "# EOF\n") {
		t.Errorf("the output lacks per-page series or # EOF:\n%s", data)
	}
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != 3 {
		t.Errorf("%d requests, want 3 (one page a day)", n)
	}

	before := srv.CountRequests("")
	for _, tc := range []struct{ args, want string }{
		{"--from=" + from + " --output=" + out, "exists: add --force"},
		{"--from=2025-02-30 --output=" + out, `--from: invalid date "2025-02-30"`},
		{"--output=" + out, "--from is required"},
		{"--from=" + from + " --output=" + out + " --analytics.max-paths=-1", "--analytics.max-paths must be 0"},
		{"--from=" + from + " --output=" + out + " --backfill.label=job", "--backfill.label=job: want NAME=VALUE"},
		{"--from=" + from + " --output=" + out + " --backfill.label=window=7d", "--backfill.label=window=7d: window is a label of every series"},
		{"--from=" + from + " --output=" + dir + "/b.om --remote-write.url=http://127.0.0.1:9/api/v1/write", "--output and --remote-write.url exclude each other"},
		{"--from=" + from + " --remote-write.url=ftp://127.0.0.1:9/", "--remote-write.url=ftp://127.0.0.1:9/: want an http or https URL"},
		{"--from=" + from + " --output=" + dir + "/c.om --remote-write.config=" + dir + "/rw.yml", "--remote-write.config=" + dir + "/rw.yml is set without --remote-write.url"},
		{"--from=" + from + " --output=" + dir + "/c.om --remote-write.journal=" + dir + "/j", "--remote-write.journal=" + dir + "/j is set without --remote-write.url"},
	} {
		o := runMain(t, env, append([]string{"backfill", api}, strings.Fields(tc.args)...)...)
		if o.code != 1 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("backfill %s: exit %d, stderr %q; want 1 and %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
	if n := srv.CountRequests("") - before; n != 0 {
		t.Errorf("refused command lines sent %d requests", n)
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
