package stream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// A small stream, its whole exposition.
func TestExposition(t *testing.T) {
	r := newRig(t, nil)
	a := view("11111111-1111-1111-1111-111111111111", "/quickstart")
	a.ref = "https://www.Google.com:443/search?q=secret"
	b := view("22222222-2222-2222-2222-222222222222", "/quickstart?token=abc")
	b.ua = "Mozilla/5.0 (compatible; GPTBot/1.1)"
	c := view("33333333-3333-3333-3333-333333333333", "/api/intro.md")
	c.ua = "curl/8.0"
	d := ev{id: "44444444-4444-4444-4444-444444444444", sub: "acme", typ: "docs.mcp.tool_call", props: `{"tool":"search_docs"}`, stringPayload: true}
	e := ev{id: "55555555-5555-5555-5555-555555555555", sub: "other-site", typ: "docs.brand_new.thing"}
	r.put("2026/08/21/12/00-a.jsonl", lines(a, b, c, d, e, a))
	r.poll()
	want := `
# HELP mintlify_stream_duplicates_dropped_total Events dropped because their event_id was already counted.
# TYPE mintlify_stream_duplicates_dropped_total counter
mintlify_stream_duplicates_dropped_total 1
# HELP mintlify_stream_events_total Events read from the stream, each once, by project and eventType (unknown types included; past 200 types a project's later ones count as event="other").
# TYPE mintlify_stream_events_total counter
mintlify_stream_events_total{event="docs.brand_new.thing",project="other-site"} 1
mintlify_stream_events_total{event="docs.content.view",project="proj-acme"} 3
mintlify_stream_events_total{event="docs.mcp.tool_call",project="proj-acme"} 1
# HELP mintlify_stream_lines_read_total Non-empty lines read from counted objects (refused ones included).
# TYPE mintlify_stream_lines_read_total counter
mintlify_stream_lines_read_total 6
# HELP mintlify_stream_mcp_tool_calls_total MCP tool call events by tool.
# TYPE mintlify_stream_mcp_tool_calls_total counter
mintlify_stream_mcp_tool_calls_total{project="proj-acme",tool="search_docs"} 1
# HELP mintlify_stream_objects_read_total Stream objects read whole and counted.
# TYPE mintlify_stream_objects_read_total counter
mintlify_stream_objects_read_total 1
# HELP mintlify_stream_page_views_total Page and Markdown view events by path and traffic class (human, ai, search_index, training, other_ai: by user agent, --stream.traffic-rules); paths past --stream.max-paths count as path="other".
# TYPE mintlify_stream_page_views_total counter
mintlify_stream_page_views_total{path="/api/intro.md",project="proj-acme",traffic="ai"} 1
mintlify_stream_page_views_total{path="/quickstart",project="proj-acme",traffic="human"} 1
mintlify_stream_page_views_total{path="/quickstart",project="proj-acme",traffic="training"} 1
# HELP mintlify_stream_referrals_total View events by referrer host (none when absent); hosts past --stream.top-referrers count as referrer="other".
# TYPE mintlify_stream_referrals_total counter
mintlify_stream_referrals_total{project="proj-acme",referrer="none"} 2
mintlify_stream_referrals_total{project="proj-acme",referrer="www.google.com"} 1
# HELP mintlify_stream_unmapped_subdomains Subdomains seen in the stream that --stream.project does not map (their events carry the subdomain as project).
# TYPE mintlify_stream_unmapped_subdomains gauge
mintlify_stream_unmapped_subdomains 1
# HELP mintlify_stream_visitors Distinct visitors (user_id, else anon_id) over the last 1, 7 or 30 UTC days including today, from merged per-day HyperLogLog sketches (standard error 0.81 %).
# TYPE mintlify_stream_visitors gauge
mintlify_stream_visitors{project="other-site",window="1d"} 0
mintlify_stream_visitors{project="other-site",window="30d"} 0
mintlify_stream_visitors{project="other-site",window="7d"} 0
mintlify_stream_visitors{project="proj-acme",window="1d"} 3
mintlify_stream_visitors{project="proj-acme",window="30d"} 3
mintlify_stream_visitors{project="proj-acme",window="7d"} 3
`
	if err := testutil.CollectAndCompare(r.src, strings.NewReader(want),
		"mintlify_stream_duplicates_dropped_total", "mintlify_stream_events_total", "mintlify_stream_lines_read_total",
		"mintlify_stream_mcp_tool_calls_total", "mintlify_stream_objects_read_total", "mintlify_stream_page_views_total",
		"mintlify_stream_referrals_total", "mintlify_stream_unmapped_subdomains", "mintlify_stream_visitors"); err != nil {
		t.Fatal(err)
	}
	if got := r.value("mintlify_stream_page_visitors", "project", "proj-acme", "window", "7d", "path", "/quickstart"); got != 2 {
		t.Errorf("page visitors of /quickstart over 7d = %v, want 2", got)
	}
	if problems, err := testutil.CollectAndLint(r.src); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// Objects arrive late and out of order, events twice: each counted once,
// and polling again reads nothing again.
func TestLateOutOfOrderAndDuplicates(t *testing.T) {
	r := newRig(t, nil)
	r.put("k/0100", lines(view("00000000-0000-0000-0000-000000000001", "/a"), view("00000000-0000-0000-0000-000000000002", "/a")))
	r.put("k/0300", lines(view("00000000-0000-0000-0000-000000000003", "/a")))
	r.poll()
	r.clock.Advance(30 * time.Second)
	// Late: sorts between the two read ones; and a duplicate of event 1.
	r.put("k/0200", lines(view("00000000-0000-0000-0000-000000000004", "/a"), view("00000000-0000-0000-0000-000000000001", "/a")))
	// A duplicate within the next object, and a new object after.
	r.put("k/0400", lines(view("00000000-0000-0000-0000-000000000005", "/a"), view("00000000-0000-0000-0000-000000000005", "/a")))
	r.poll()
	r.poll()
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 5 {
		t.Errorf("events = %v, want 5", got)
	}
	if got := r.value("mintlify_stream_duplicates_dropped_total"); got != 2 {
		t.Errorf("duplicates = %v, want 2", got)
	}
	for k, n := range r.store.opens {
		if n != 1 {
			t.Errorf("%s opened %d times, want once", k, n)
		}
	}
	// An hour later the checkpoint has moved past them: List asks only
	// for what follows, and an object late by more than the look-back,
	// below the checkpoint, is missed (the documented limit).
	r.clock.Advance(time.Hour + time.Minute)
	r.poll()
	r.put("k/0150", lines(view("00000000-0000-0000-0000-000000000006", "/a")))
	r.put("k/0500", lines(view("00000000-0000-0000-0000-000000000007", "/a")))
	r.poll()
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 6 {
		t.Errorf("events = %v, want 6 (k/0500 read, k/0150 below the checkpoint missed)", got)
	}
	if r.store.opens["k/0150"] != 0 {
		t.Errorf("k/0150 below the checkpoint was opened")
	}
}

// Many objects: List is paged by 1000 until a short page.
func TestPagedListing(t *testing.T) {
	r := newRig(t, nil)
	for i := range 2500 {
		r.put(fmt.Sprintf("k/%05d", i), lines(view(fmt.Sprintf("id-%d", i), "/p")))
	}
	r.poll()
	if got := r.value("mintlify_stream_objects_read_total"); got != 2500 {
		t.Errorf("objects = %v, want 2500", got)
	}
	if r.store.lists != 3 {
		t.Errorf("List called %d times, want 3", r.store.lists)
	}
}

// Gzip objects, by magic bytes whatever the metadata says.
func TestGzipObjects(t *testing.T) {
	r := newRig(t, nil)
	r.store.put("k/1", t0, gz(lines(view("g1", "/a"), view("g2", "/b"))), "gzip")
	r.store.put("k/2", t0, gz(lines(view("g3", "/a"))), "") // no metadata: the magic tells
	r.store.put("k/3", t0, lines(view("g4", "/a")), "gzip") // says gzip, already decoded
	r.store.put("k/4", t0, append([]byte{0x1f, 0x8b}, []byte("not gzip at all")...), "")
	r.poll()
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 4 {
		t.Errorf("events = %v, want 4", got)
	}
	if got := r.value("mintlify_stream_objects_skipped_total", "reason", "bad_gzip"); got != 1 {
		t.Errorf("bad gzip skipped = %v, want 1", got)
	}
}

// Hostile lines are refused by reason, each once, never a crash, and
// the good lines around them count.
func TestRefusedLines(t *testing.T) {
	r := newRig(t, nil)
	good := view("ok-1", "/a")
	var b strings.Builder
	b.WriteString(good.line() + "\n")
	b.WriteString("not json at all\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":"{not json"}` + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":{"path":"/a"}}` + "\n")
	b.WriteString(`{"payload":{"event_id":"x1"}}` + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":{"event_id":"x2","properties":[1,2]}}` + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":{"event_id":"x3","properties":"\"str\""}}` + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":{"event_id":"x4","path":17}}` + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":{"event_id":"x5","path":"/ok","properties":"{\"a\":1}"}}` + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":42}` + "\n")
	b.WriteString("\n   \n")
	b.WriteString(`{"eventType":"` + strings.Repeat("x", 10<<20) + `"}` + "\n")
	b.WriteString(view("ok-2", "/a").line() + "\n")
	b.WriteString(`{"eventType":"docs.content.view","payload":{"event_id":"trunc`)
	r.put("k/1", []byte(b.String()))
	r.poll()
	want := map[string]float64{
		"malformed_line": 2, "payload_not_json": 1, "missing_event_id": 1, "missing_event_type": 1,
		"properties_not_object": 2, "malformed_payload": 1, "oversized_line": 1, "truncated_last_line": 1,
	}
	for reason, n := range want {
		if got := r.value("mintlify_stream_lines_refused_total", "reason", reason); got != n {
			t.Errorf("refused %s = %v, want %v", reason, got, n)
		}
	}
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 2 {
		t.Errorf("events (acme) = %v, want 2", got)
	}
	if got := r.value("mintlify_stream_events_total", "project", "unknown", "event", "docs.content.view"); got != 1 {
		t.Errorf("events (no subdomain) = %v, want 1", got)
	}
	if got := r.value("mintlify_stream_lines_read_total"); got != 13 {
		t.Errorf("lines read = %v, want 13", got)
	}
	if n := r.logs.CountLines("lines refused"); n != len(want) {
		t.Errorf("%d log lines about refused lines, want one per reason (%d):\n%s", n, len(want), r.logs)
	}
	if n := r.logs.CountLines("object=k/1"); n == 0 {
		t.Errorf("the log does not name the object:\n%s", r.logs)
	}
}

// An object that vanished between List and Open is skipped, counted, and
// never retried; a failing read is retried at the next polls, then
// skipped; neither holds the checkpoint back for good.
func TestVanishedAndFailingObjects(t *testing.T) {
	r := newRig(t, nil)
	r.put("k/1", lines(view("v1", "/a")))
	r.put("k/2", lines(view("v2", "/a")))
	r.put("k/3", lines(view("v3", "/a")))
	r.store.vanish["k/1"] = true
	r.store.openErr["k/2"] = errors.New("connection reset by peer")
	r.poll()
	r.poll()
	if got := r.value("mintlify_stream_objects_skipped_total", "reason", "not_found"); got != 1 {
		t.Errorf("not_found = %v, want 1", got)
	}
	if r.store.opens["k/1"] != 1 {
		t.Errorf("the vanished object was opened %d times, want 1", r.store.opens["k/1"])
	}
	if r.store.opens["k/2"] != 2 {
		t.Errorf("the failing object was opened %d times, want 2", r.store.opens["k/2"])
	}
	delete(r.store.openErr, "k/2") // recovers: counted once
	r.poll()
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 2 {
		t.Errorf("events = %v, want 2", got)
	}
	r.put("k/4", lines(view("v4", "/a")))
	r.store.openErr["k/4"] = errors.New("connection reset by peer")
	r.poll()
	r.poll()
	r.poll()
	if got := r.value("mintlify_stream_objects_skipped_total", "reason", "read_error"); got != 1 {
		t.Errorf("read_error = %v, want 1", got)
	}
	r.poll()
	if r.store.opens["k/4"] != 3 {
		t.Errorf("the broken object was opened %d times, want 3", r.store.opens["k/4"])
	}
}

// Store errors become one-line errors naming the flag at fault; the next
// poll retries; throttling doubles the interval up to 5 minutes.
func TestStoreErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		flag string
	}{
		{stream.ErrAccessDenied, "AWS_ACCESS_KEY_ID"},
		{stream.ErrNoBucket, "--stream.s3.bucket"},
		{stream.ErrWrongRegion, "--stream.s3.region"},
		{stream.ErrThrottled, "slow down"},
		{errors.New("dial tcp: i/o timeout"), "--stream.s3.bucket"},
	} {
		r := newRig(t, nil)
		r.put("k/1", lines(view("e1", "/a")))
		r.store.listErr = fmt.Errorf("list: %w", tc.err)
		err := r.src.Poll(context.Background())
		st := r.src.Status()
		if err == nil || st.Err == nil || !strings.Contains(st.Err.Error(), tc.flag) || strings.Contains(st.Err.Error(), "\n") {
			t.Errorf("%v: Status().Err = %v, want one line naming %s", tc.err, st.Err, tc.flag)
		}
		if !errors.Is(st.Err, tc.err) && !strings.Contains(tc.err.Error(), "i/o") {
			t.Errorf("%v: Status().Err does not wrap the sentinel", tc.err)
		}
		r.store.listErr = nil
		r.poll()
		if st := r.src.Status(); st.Err != nil || st.Events != 1 {
			t.Errorf("%v: after recovery Status = %+v, want no error and 1 event", tc.err, st)
		}
	}
}

// While the store throttles, Run waits twice as long each poll, up to 5
// minutes; once it stops, the interval is back to --stream.poll-interval.
func TestRunBacksOffWhileThrottled(t *testing.T) {
	r := newRig(t, nil)
	r.store.listErr = stream.ErrThrottled
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.src.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	lists := func() int { r.store.mu.Lock(); defer r.store.mu.Unlock(); return r.store.lists }
	settle := func() {
		if !r.clock.Settle(1, 10*time.Second) {
			t.Fatal("Run did not settle")
		}
	}
	settle()
	for _, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute} {
		before := lists()
		r.clock.Advance(wait - time.Second)
		settle()
		if lists() != before {
			t.Fatalf("polled before %s", wait)
		}
		r.clock.Advance(time.Second)
		settle()
		if lists() != before+1 {
			t.Fatalf("did not poll after %s", wait)
		}
	}
	r.store.mu.Lock()
	r.store.listErr = nil
	r.store.mu.Unlock()
	r.clock.Advance(5 * time.Minute)
	settle()
	before := lists()
	r.clock.Advance(30 * time.Second)
	settle()
	if lists() != before+1 {
		t.Fatalf("after throttling the interval is not back to 30s")
	}
}
