package cli

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
)

// parseStream parses args (with no MINTLIFY_ variable set) and returns the
// configuration or its error.
func parseStream(t *testing.T, args ...string) (*flags, error) {
	t.Helper()
	t.Setenv("MINTLIFY_API_KEY", "")
	t.Setenv("MINTLIFY_PROJECT_ID", "")
	f := &flags{}
	app := newApp(f)
	if _, err := app.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	_, err := config(f, log.NewNopLogger())
	return f, err
}

// TestStreamFlagsRefused: every bad --stream.* value is refused at start
// by a message that names its flag.
func TestStreamFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		flag string
	}{
		{[]string{"--stream.s3.prefix=logs/"}, "--stream.s3.prefix is set but the event-stream source is off: add --stream.s3.bucket"},
		{[]string{"--stream.project=docs=p1"}, "--stream.project is set but the event-stream source is off"},
		{[]string{"--stream.s3.bucket="}, "--stream.s3.bucket is empty"},
		{[]string{"--stream.s3.bucket=s3://events"}, "--stream.s3.bucket="},
		{[]string{"--stream.s3.bucket=arn:aws:s3:::events"}, "--stream.s3.bucket="},
		{[]string{"--stream.s3.bucket=ev"}, "--stream.s3.bucket="},
		{[]string{"--stream.s3.bucket=events", "--stream.s3.region=EU West"}, "--stream.s3.region="},
		{[]string{"--stream.s3.bucket=events", "--stream.s3.endpoint=ftp://x"}, "--stream.s3.endpoint="},
		{[]string{"--stream.s3.bucket=events", "--stream.s3.endpoint=http://127.0.0.1:9000/events"}, "--stream.s3.endpoint="},
		{[]string{"--stream.s3.bucket=events", "--stream.s3.prefix=/logs"}, "--stream.s3.prefix="},
		{[]string{"--stream.s3.bucket=events", "--stream.poll-interval=100ms"}, "--stream.poll-interval"},
		{[]string{"--stream.s3.bucket=events", "--stream.poll-interval=2h"}, "--stream.poll-interval"},
		{[]string{"--stream.s3.bucket=events", "--stream.look-back=-1s"}, "--stream.look-back"},
		{[]string{"--stream.s3.bucket=events", "--stream.max-paths=0"}, "--stream.max-paths"},
		{[]string{"--stream.s3.bucket=events", "--stream.top-referrers=0"}, "--stream.top-referrers"},
		{[]string{"--stream.s3.bucket=events", "--stream.project=docs"}, "--stream.project=\"docs\""},
		{[]string{"--stream.s3.bucket=events", "--stream.project==p1"}, "--stream.project="},
		{[]string{"--stream.s3.bucket=events", "--stream.project=docs=a b"}, "--stream.project="},
		{[]string{"--stream.s3.bucket=events", "--stream.project=docs=p1", "--stream.project=docs=p2"}, "--stream.project: subdomain docs is mapped twice"},
		{[]string{"--stream.s3.bucket=events", "--stream.traffic-rules=" + filepath.Join(dir, "absent.yml")}, "--stream.traffic-rules="},
		{[]string{"--stream.s3.bucket=events", "--stream.event-map=" + dir}, "--stream.event-map="},
		{[]string{"--stream.s3.bucket=events", "--collector.visitors"}, "--collector.visitors needs the Mintlify API"},
		{[]string{"--stream.s3.bucket=events", "--collector.jobs"}, "--collector.jobs needs the Mintlify API"},
	} {
		_, err := parseStream(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.flag) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line containing %q", tt.args, err, tt.flag)
		}
	}
}

// TestStreamFlagsAccepted: a bucket turns the source on with the flags'
// values; with neither key nor project it runs alone (no REST source);
// with a project the REST sources stay on.
func TestStreamFlagsAccepted(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(rules, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := parseStream(t, "--stream.s3.bucket=events", "--stream.s3.prefix=mintlify/", "--stream.s3.region=eu-west-1",
		"--stream.s3.endpoint=http://127.0.0.1:9000", "--stream.poll-interval=10s", "--stream.look-back=2h",
		"--stream.project=docs=p1", "--stream.project=api=p2", "--stream.max-paths=100", "--stream.top-referrers=10",
		"--stream.search-terms", "--stream.traffic-rules="+rules)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := config(f, log.NewNopLogger())
	sc := cfg.Stream
	if sc == nil || sc.Bucket != "events" || sc.Prefix != "mintlify/" || sc.Region != "eu-west-1" || sc.Endpoint != "http://127.0.0.1:9000" ||
		sc.PollInterval != 10*time.Second || sc.LookBack != 2*time.Hour || !maps.Equal(sc.Projects, map[string]string{"docs": "p1", "api": "p2"}) ||
		sc.MaxPaths != 100 || sc.TopReferrers != 10 || !sc.SearchTerms || sc.TrafficRules != rules || sc.AccessKeyID != "" {
		t.Errorf("stream config = %+v", sc)
	}
	if !f.streamOnly() || len(cfg.Collectors) != 0 || cfg.Jobs.Enabled {
		t.Errorf("a bucket without key or project: stream only %v, collectors %v, jobs %v; want the stream alone", f.streamOnly(), cfg.Collectors, cfg.Jobs.Enabled)
	}
	f, err = parseStream(t, "--stream.s3.bucket=events", "--mintlify.project-id=docs")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ = config(f, log.NewNopLogger())
	if f.streamOnly() || len(cfg.Collectors) == 0 || cfg.Stream.PollInterval != 30*time.Second || cfg.Stream.LookBack != time.Hour ||
		cfg.Stream.MaxPaths != 5000 || cfg.Stream.TopReferrers != 50 {
		t.Errorf("with a project: stream only %v, collectors %v, stream %+v; want the REST sources on and the defaults", f.streamOnly(), cfg.Collectors, cfg.Stream)
	}
	if f, err = parseStream(t); err != nil || f.streamOnly() {
		t.Errorf("no stream flag: err %v", err)
	}
}
