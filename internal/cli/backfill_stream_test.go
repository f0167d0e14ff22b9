package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestBackfillFromStream: backfill with --stream.s3.bucket reads the
// bucket (no API key, no request to the API), writes the stream's counters
// with event-time stamps and the target labels to --output, and refuses
// what does not apply to it.
func TestBackfillFromStream(t *testing.T) {
	fake := mintlifytest.NewS3("events")
	t.Cleanup(fake.Close)
	w := mintlifytest.NewStreamWriter(fake, "mintlify/", 5)
	if err := w.Write(context.Background(), mintlifytest.StreamOptions{Events: 300, Subdomains: []string{"acme"}}); err != nil {
		t.Fatal(err)
	}
	want := w.Expect()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "not-a-secret",
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "stream.om")
	args := []string{"backfill", "--stream.s3.bucket=events", "--stream.s3.prefix=mintlify/", "--stream.s3.endpoint=" + fake.URL(),
		"--stream.s3.region=us-east-1", "--stream.project=acme=p-acme", "--from=2026-03-02", "--to=2026-03-02", "--backfill.label=instance=docs"}

	o := runMain(t, nil, append(args, "--output="+out)...)
	if o.code != 0 {
		t.Fatalf("backfill from the stream: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The writer's 300 events start at 10:00 UTC, 2 s apart: all counted
	// by 10:10, and the day ends at midnight.
	views := want.Events["acme"]["docs.content.view"]
	for _, line := range []string{
		"# TYPE mintlify_stream_events counter\n",
		`mintlify_stream_events_total{instance="docs",job="mintlify",project="p-acme",event="docs.content.view"} ` + strconv.FormatInt(views, 10) + " 1772446200\n",
		`mintlify_stream_events_total{instance="docs",job="mintlify",project="p-acme",event="docs.content.view"} ` + strconv.FormatInt(views, 10) + " 1772496000\n",
	} {
		if !strings.Contains(string(data), line) {
			t.Errorf("the output lacks %q", line)
		}
	}
	if !strings.HasSuffix(string(data), "# EOF\n") || !strings.Contains(o.stdout, "300 events counted") {
		t.Errorf("output without # EOF, or report without the events:\n%s", o.stdout)
	}

	for _, tc := range []struct{ extra, want string }{
		{"--output=" + out, "exists: add --force"},
		{"--output=" + dir + "/b.om --backfill.pages", "--backfill.pages does not apply to a backfill from the event stream"},
		{"--output=" + dir + "/b.om --remote-write.url=http://127.0.0.1:9/api/v1/write", "--output and --remote-write.url exclude each other"},
		{"--remote-write.url=http://127.0.0.1:9/api/v1/write --remote-write.journal=" + dir + "/j", "--remote-write.journal does not apply"},
		{"", "--output or --remote-write.url is required"},
		{"--output=" + dir + "/b.om --stream.max-paths=0", "--stream.max-paths must be from 1"},
	} {
		o := runMain(t, nil, append(args, strings.Fields(tc.extra)...)...)
		if o.code != 1 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("backfill %s: exit %d, stderr %q; want 1 and %q", tc.extra, o.code, o.stderr, tc.want)
		}
	}

	// Store errors stop the run in one line naming the flag; nothing is written.
	noBucket := append([]string{"backfill", "--stream.s3.bucket=elsewhere"}, args[2:]...)
	if o := runMain(t, nil, append(noBucket, "--output="+dir+"/d.om")...); o.code != 1 || !strings.Contains(o.stderr, "--stream.s3.bucket: no such bucket") {
		t.Errorf("a missing bucket: exit %d, stderr %q", o.code, o.stderr)
	}
	fake.SetAccessKey("AKIDOTHER")
	if o := runMain(t, nil, append(args, "--output="+dir+"/d.om")...); o.code != 1 || !strings.Contains(o.stderr, "access denied to --stream.s3.bucket") {
		t.Errorf("a refused key: exit %d, stderr %q", o.code, o.stderr)
	}
	if _, err := os.Stat(dir + "/d.om"); err == nil {
		t.Error("a failed run wrote --output")
	}
}
