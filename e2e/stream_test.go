package e2e

// The event stream end to end: versitygw (a real S3-compatible server that
// enforces SigV4), mintlifytest.StreamWriter writing through the AWS SDK,
// and the exporter binary reading the bucket with the SDK's credential
// chain (environment variables here).

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest/s3sdk"
	"github.com/mintlify-exporter/mintlify_exporter/internal/pinnedtool"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// The versitygw root account of the tests (not a secret: loopback only).
const (
	vgwAccess = "AKIDSTREAME2E"
	vgwSecret = "stream-e2e-secret"
	vgwBucket = "events"
	vgwPrefix = "mintlify/"
)

// gateway is a running versitygw with one bucket.
type gateway struct {
	*process
	endpoint string
}

// startGateway runs versitygw on a free loopback port over a new directory
// holding the bucket vgwBucket.
func startGateway(t *testing.T) *gateway {
	t.Helper()
	bin := pinnedtool.Path(t, "versitygw")
	root, meta := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, vgwBucket), 0o755); err != nil {
		t.Fatal(err)
	}
	env := environ("ROOT_ACCESS_KEY="+vgwAccess, "ROOT_SECRET_KEY="+vgwSecret)
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		// --sidecar: object metadata (Content-Encoding) in a directory of
		// its own, not in extended attributes the temporary file system may lack.
		p := launch(t, "versitygw", bin, env, []string{"--port", addr, "posix", "--sidecar", meta, root})
		p.addr = addr
		err := p.waitReady(func() error {
			resp, err := httpClient.Get("http://" + addr + "/") // 403 without a signature: it serves
			if err != nil {
				return err
			}
			resp.Body.Close()
			return nil
		}, 30*time.Second)
		if err == nil {
			return &gateway{process: p, endpoint: "http://" + addr}
		}
		if attempt < 3 && p.exited() && strings.Contains(p.log.String(), "address already in use") {
			continue
		}
		t.Fatalf("versitygw did not serve on %s: %v\n%s", addr, err, p.tail(64<<10))
	}
}

// writer returns a StreamWriter into the gateway's bucket through the SDK.
func (g *gateway) writer(t *testing.T, seed int64) *mintlifytest.StreamWriter {
	t.Helper()
	put, err := s3sdk.NewPutter(g.endpoint, vgwBucket, "", vgwAccess, vgwSecret)
	if err != nil {
		t.Fatal(err)
	}
	return mintlifytest.NewStreamWriter(put, vgwPrefix, seed)
}

// awsEnv is the exporter's AWS credential chain for the gateway: the
// environment only (no shared files, no instance metadata).
func awsEnv(secret, region string) []string {
	return []string{"AWS_ACCESS_KEY_ID=" + vgwAccess, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_REGION=" + region,
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "AWS_EC2_METADATA_DISABLED=true"}
}

// streamArgs are the stream flags of the tests: acme is mapped to a
// project, globex keeps its subdomain as label.
func streamArgs(g *gateway, bucket string) []string {
	return []string{"--stream.s3.bucket=" + bucket, "--stream.s3.prefix=" + vgwPrefix, "--stream.s3.endpoint=" + g.endpoint,
		"--stream.poll-interval=1s", "--stream.look-back=1h", "--stream.project=acme=proj-acme",
		"--stream.top-referrers=1000", "--stream.search-terms"}
}

// streamProject is the project label of a subdomain under streamArgs.
func streamProject(sub string) string {
	if sub == "acme" {
		return "proj-acme"
	}
	return sub
}

// scrapeNow GETs /metrics once (no wait for /-/ready).
func scrapeNow(t *testing.T, p *process) map[string]float64 {
	t.Helper()
	resp, body := p.get(t, "/metrics", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %s", resp.StatusCode, body)
	}
	return series(promtest.ParseText(t, body))
}

// waitObjects waits until the exporter has read n objects.
func waitObjects(t *testing.T, p *process, n int64, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("%d objects read", n), func() string {
		got := scrapeNow(t, p)["mintlify_stream_objects_read_total{}"]
		if int64(got) != n {
			return fmt.Sprintf("mintlify_stream_objects_read_total = %v", got)
		}
		return ""
	})
}

// wantCounters are the exact counter series a correct reader of what the
// writer wrote serves, keyed as series does.
func wantCounters(tr mintlifytest.StreamTruth) map[string]float64 {
	w := map[string]float64{
		key("mintlify_stream_objects_read_total"):       float64(tr.Objects),
		key("mintlify_stream_lines_read_total"):         float64(tr.Lines),
		key("mintlify_stream_duplicates_dropped_total"): float64(tr.Duplicates),
	}
	for reason, n := range tr.Refused {
		w[key("mintlify_stream_lines_refused_total", "reason", reason)] = float64(n)
	}
	for sub, m := range tr.Events {
		for typ, n := range m {
			w[key("mintlify_stream_events_total", "project", streamProject(sub), "event", typ)] = float64(n)
		}
	}
	for sub, paths := range tr.PageViews {
		for path, m := range paths {
			for class, n := range m {
				w[key("mintlify_stream_page_views_total", "project", streamProject(sub), "path", path, "traffic", class)] = float64(n)
			}
		}
	}
	for sub, m := range tr.Referrals {
		for host, n := range m {
			w[key("mintlify_stream_referrals_total", "project", streamProject(sub), "referrer", host)] = float64(n)
		}
	}
	one := func(name string, m map[string]int64) {
		for sub, n := range m {
			w[key(name, "project", streamProject(sub))] = float64(n)
		}
	}
	one("mintlify_stream_searches_total", tr.Searches)
	one("mintlify_stream_search_result_clicks_total", tr.SearchResultClicks)
	one("mintlify_stream_assistant_conversations_total", tr.AssistantConversations)
	one("mintlify_stream_assistant_errors_total", tr.AssistantErrors)
	two := func(name, label string, m map[string]map[string]int64) {
		for sub, mm := range m {
			for v, n := range mm {
				w[key(name, "project", streamProject(sub), label, v)] = float64(n)
			}
		}
	}
	two("mintlify_stream_search_term_queries_total", "term", tr.SearchTerms)
	two("mintlify_stream_mcp_tool_calls_total", "tool", tr.MCPToolCalls)
	two("mintlify_stream_context_menu_actions_total", "action", tr.ContextMenuActions)
	for sub, paths := range tr.Feedback {
		for path, m := range paths {
			for kind, n := range m {
				w[key("mintlify_stream_feedback_total", "project", streamProject(sub), "path", path, "kind", kind)] = float64(n)
			}
		}
	}
	return w
}

// counterFamilies are the stream's counter families wantCounters covers.
var counterFamilies = []string{"mintlify_stream_objects_read_total", "mintlify_stream_lines_read_total", "mintlify_stream_duplicates_dropped_total",
	"mintlify_stream_lines_refused_total", "mintlify_stream_events_total", "mintlify_stream_page_views_total", "mintlify_stream_referrals_total",
	"mintlify_stream_searches_total", "mintlify_stream_search_result_clicks_total", "mintlify_stream_assistant_conversations_total",
	"mintlify_stream_assistant_errors_total", "mintlify_stream_search_term_queries_total", "mintlify_stream_mcp_tool_calls_total",
	"mintlify_stream_context_menu_actions_total", "mintlify_stream_feedback_total"}

// checkExact compares every counter series of the stream families with
// the writer's truth, both ways (nothing missing, nothing extra, a zero
// value aside), and the visitor gauges with the exact counts of today
// within 4 standard errors of their sketches.
func checkExact(t *testing.T, got map[string]float64, tr mintlifytest.StreamTruth, today string) {
	t.Helper()
	want := wantCounters(tr)
	bad := 0
	for k, v := range want {
		if got[k] != v && bad < 20 {
			t.Errorf("%s = %v, want %v", k, got[k], v)
			bad++
		}
	}
	for k, v := range got {
		for _, fam := range counterFamilies {
			if strings.HasPrefix(k, fam+"{") {
				if _, ok := want[k]; !ok && v != 0 && bad < 20 {
					t.Errorf("%s = %v, not in the writer's truth", k, v)
					bad++
				}
			}
		}
	}
	near := func(k string, exact int, relErr float64) {
		t.Helper()
		g := got[k]
		if tol := math.Max(1, 4*relErr*float64(exact)); math.Abs(g-float64(exact)) > tol {
			t.Errorf("%s = %v, want %d within %.0f (4 standard errors)", k, g, exact, tol)
		}
	}
	for sub, days := range tr.Visitors {
		for _, w := range []string{"1d", "7d", "30d"} {
			near(key("mintlify_stream_visitors", "project", streamProject(sub), "window", w), days[today], 0.0081)
		}
	}
	for sub, days := range tr.PageVisitors {
		for path, n := range days[today] {
			near(key("mintlify_stream_page_visitors", "project", streamProject(sub), "window", "1d", "path", path), n, 0.0163)
		}
	}
}

// todaysStart returns a start time and spacing that put n events in the
// last half hour of today (UTC), before now, so every window holds them.
func todaysStart(n int) (time.Time, time.Duration) {
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour)
	span := min(30*time.Minute, now.Sub(midnight)-30*time.Second)
	if span < time.Second {
		span = time.Second // seconds after midnight: the events crowd
	}
	return now.Add(-span - 10*time.Second), span / time.Duration(n+n/10)
}

// TestStreamExactAcrossKill: (a) after 100,000 events with duplicates, late
// objects, both payload forms, gzip, a truncated last line, a 10 MB line,
// malformed lines and a vanishing object, every counter on /metrics equals
// the writer's truth; (b) the exporter is SIGKILLed after it saved the
// cache file and read more, restarted on the same --cache.file, and still
// counts everything exactly once; (c) an object written while it runs is
// on /metrics within the poll interval plus 5 s (measured and logged). The
// exporter runs the stream alone (no key, no project).
func TestStreamExactAcrossKill(t *testing.T) {
	exporterBinary(t) // skips under -short, before the gateway starts
	t.Parallel()
	g := startGateway(t)
	w := g.writer(t, 36)
	ctx := context.Background()
	today := utcToday()
	start, every := todaysStart(100000)
	subs := []string{"acme", "globex"}
	batch := func(events int, faults mintlifytest.StreamFaults, from time.Time) {
		t.Helper()
		if err := w.Write(ctx, mintlifytest.StreamOptions{Events: events, Subdomains: subs, Paths: 20, Start: from, Every: every,
			PerObject: 1000, Faults: faults}); err != nil {
			t.Fatal(err)
		}
	}
	batch(50000, mintlifytest.AllStreamFaults(), start)
	firstObjects := w.Expect().Objects

	cache := filepath.Join(t.TempDir(), "cache.json")
	args := append(streamArgs(g, vgwBucket), "--cache.file="+cache)
	env := awsEnv(vgwSecret, "us-east-1")
	p := startExporter(t, env, args...)
	waitObjects(t, p, firstObjects, 60*time.Second)
	// The cache file is saved within its 30 s debounce of the first change.
	eventually(t, 60*time.Second, "the cache file holds the stream's snapshot", func() string {
		f, err := statefile.Read(cache)
		if err != nil || len(f.Stream) == 0 {
			return fmt.Sprintf("no stream section yet (%v)", err)
		}
		return ""
	})
	// Read more after the save, then die without a word.
	batch(20000, mintlifytest.StreamFaults{Duplicates: 5, Late: true, Gzip: true, Malformed: 1, BadPayload: 1}, time.Time{})
	waitObjects(t, p, w.Expect().Objects, 60*time.Second)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	batch(30000, mintlifytest.StreamFaults{Duplicates: 4, Truncated: true, HugeLine: true, MissingEventID: 1, Vanishing: true}, time.Time{})
	tr := w.Expect()
	var distinct int64
	for _, m := range tr.Events {
		for _, n := range m {
			distinct += n
		}
	}
	if distinct != 100000 {
		t.Fatalf("the writer counted %d distinct events, want 100000", distinct)
	}

	p = startExporter(t, env, args...)
	waitObjects(t, p, tr.Objects, 60*time.Second)
	skipIfDayChanged(t, today)
	checkExact(t, scrapeNow(t, p), tr, today.Format(time.DateOnly))

	// (c) one more object while it runs: on /metrics within a poll plus 5 s.
	before := w.Expect().Objects
	written := time.Now()
	batch(50, mintlifytest.StreamFaults{}, time.Time{})
	waitObjects(t, p, before+1, 4*(time.Second+5*time.Second))
	delay := time.Since(written)
	t.Logf("an object written while the exporter runs was counted after %s (--stream.poll-interval=1s)", delay.Round(time.Millisecond))
	if got := scrapeNow(t, p)[key("mintlify_up", "project", "proj-acme", "source", "stream")]; got != 1 {
		t.Errorf(`mintlify_up{project="proj-acme",source="stream"} = %v, want 1`, got)
	}
	t.Logf("SIGTERM stopped the exporter, stream poller included, in %s", p.stop(t).Round(time.Millisecond))
	assertNoSecret(t, map[string]string{"stderr": p.stderr.String()}, vgwSecret)
}

// TestStreamRefusals: a wrong secret (versitygw's SignatureDoesNotMatch), a
// bucket that does not exist and a wrong region each turn
// mintlify_up{source="stream"} to 0 with a log line naming the flag to
// fix, while the REST side keeps refreshing (mintlify_up of its source 1,
// its requests sent).
func TestStreamRefusals(t *testing.T) {
	exporterBinary(t) // skips under -short, before the gateway starts
	t.Parallel()
	g := startGateway(t)
	w := g.writer(t, 7)
	if err := w.Write(context.Background(), mintlifytest.StreamOptions{Events: 100}); err != nil {
		t.Fatal(err)
	}
	srv := newFake(t, utcToday(), map[string]int{"docs": 50})
	for _, tt := range []struct {
		name, secret, region, bucket, flag string
	}{
		{"wrong secret", "not-the-secret", "us-east-1", vgwBucket, "--stream.s3.bucket=" + vgwBucket},
		{"no such bucket", vgwSecret, "us-east-1", "absent-bucket", "--stream.s3.bucket=absent-bucket"},
		{"wrong region", vgwSecret, "eu-west-1", vgwBucket, "--stream.s3.region"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(streamArgs(g, tt.bucket), "--mintlify.api-url="+srv.URL(), "--mintlify.project-id=docs",
				"--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.window=1d")
			p := startExporter(t, append(keyEnv, awsEnv(tt.secret, tt.region)...), args...)
			eventually(t, 30*time.Second, "the stream down and the REST side up", func() string {
				got := scrapeNow(t, p)
				up, upOK := got[key("mintlify_up", "project", "proj-acme", "source", "stream")]
				rest, ok := got[key("mintlify_up", "project", "docs", "source", "visitors")]
				if sent := srv.CountRequests(mintlifytest.EndpointVisitors); up != 0 || !upOK || !ok || rest != 1 || sent == 0 {
					return fmt.Sprintf("stream up %v (present %v), visitors up %v (present %v), %d visitors requests", up, upOK, rest, ok, sent)
				}
				return ""
			})
			if !strings.Contains(p.stderr.String(), tt.flag) {
				t.Errorf("no log line names %s:\n%s", tt.flag, p.stderr.String())
			}
			_, landing := p.get(t, "/", nil)
			if !strings.Contains(string(landing), tt.flag) {
				t.Errorf("the landing page's stream section does not name %s", tt.flag)
			}
			p.stop(t)
			assertNoSecret(t, map[string]string{"stderr": p.stderr.String(), "landing page": string(landing)}, vgwSecret, "not-the-secret")
		})
	}
	if srv.CountRequests(mintlifytest.EndpointVisitors) == 0 {
		t.Error("the REST side sent no request while the stream failed")
	}
}
