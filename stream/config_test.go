package stream_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// New refuses what it cannot run with, naming the flag.
func TestNewNamesTheFlagAtFault(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		mod  func(*stream.Config)
		flag string
	}{
		{func(c *stream.Config) { c.Store = nil }, "--stream.s3.bucket"},
		{func(c *stream.Config) { c.PollInterval = time.Millisecond }, "--stream.poll-interval"},
		{func(c *stream.Config) { c.LookBack = time.Second }, "--stream.look-back"},
		{func(c *stream.Config) { c.MaxPaths = -1 }, "--stream.max-paths"},
		{func(c *stream.Config) { c.TopReferrers = -3 }, "--stream.top-referrers"},
		{func(c *stream.Config) { c.Projects = map[string]string{"acme": ""} }, "--stream.project"},
		{func(c *stream.Config) { c.TrafficRules = filepath.Join(dir, "missing.yml") }, "--stream.traffic-rules"},
		{func(c *stream.Config) {
			c.TrafficRules = write("t1.yml", "rules: [{traffic: robots, agents: [x]}]\nmarkdown: ai\ndefault: human\n")
		}, "--stream.traffic-rules"},
		{func(c *stream.Config) {
			c.TrafficRules = write("t2.yml", "rules: [{traffic: ai, agents: ['']}]\nmarkdown: ai\ndefault: human\n")
		}, "--stream.traffic-rules"},
		{func(c *stream.Config) {
			c.TrafficRules = write("t3.yml", "rules: []\nmarkdown: ai\ndefault: human\nextra: 1\n")
		}, "--stream.traffic-rules"},
		{func(c *stream.Config) { c.EventMap = write("e1.yml", "events: [{event: a, family: nope}]\n") }, "--stream.event-map"},
		{func(c *stream.Config) {
			c.EventMap = write("e2.yml", "events: [{event: a, family: searches}, {event: a, family: searches}]\n")
		}, "--stream.event-map"},
		{func(c *stream.Config) {
			c.EventMap = write("e3.yml", "events: [{event: a, family: page_views, property: x}]\n")
		}, "--stream.event-map"},
		{func(c *stream.Config) { c.EventMap = write("e4.yml", "\x00\x01") }, "--stream.event-map"},
	} {
		cfg := stream.Config{Store: newMemStore()}
		tc.mod(&cfg)
		_, err := stream.New(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.flag) || strings.Contains(err.Error(), "\n") {
			t.Errorf("New = %v, want one line naming %s", err, tc.flag)
		}
	}
}

// The files replace the built-in tables; a guessed event type that is
// wrong loses nothing (it still counts in events_total).
func TestRulesAndEventMapFiles(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	emap := filepath.Join(dir, "map.yml")
	os.WriteFile(rules, []byte("rules:\n  - traffic: other_ai\n    agents: [MyBot]\nmarkdown: training\ndefault: human\n"), 0o600)
	os.WriteFile(emap, []byte("events:\n  - event: page.seen\n    family: page_views\n  - event: fb\n    family: feedback\n    property: kind\n"), 0o600)
	r := newRig(t, func(c *stream.Config) { c.TrafficRules, c.EventMap = rules, emap })
	a := ev{id: "1", sub: "acme", typ: "page.seen", path: "/x", ua: "mybot/1"}
	b := ev{id: "2", sub: "acme", typ: "page.seen", path: "/x.md", ua: "curl"}
	c := ev{id: "3", sub: "acme", typ: "docs.content.view", path: "/x", ua: "curl"}
	d := ev{id: "4", sub: "acme", typ: "fb", path: "/x", props: `{"kind":"up"}`}
	e := ev{id: "5", sub: "acme", typ: "fb", path: "/y", props: `{"other":1}`}
	r.put("k/1", lines(a, b, c, d, e))
	r.poll()
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mintlify_stream_page_views_total", []string{"project", "proj-acme", "path", "/x", "traffic", "other_ai"}, 1},
		{"mintlify_stream_page_views_total", []string{"project", "proj-acme", "path", "/x.md", "traffic", "training"}, 1},
		{"mintlify_stream_events_total", []string{"project", "proj-acme", "event", "docs.content.view"}, 1},
		{"mintlify_stream_feedback_total", []string{"project", "proj-acme", "path", "/x", "kind", "up"}, 1},
		{"mintlify_stream_feedback_total", []string{"project", "proj-acme", "path", "/y", "kind", "unknown"}, 1},
	} {
		if got := r.value(tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
}

// Per-path series are capped: the first --stream.max-paths paths keep
// their series for good, later ones count as path="other"; no count ever
// moves from one series to another, across a restart too.
func TestMaxPathsNeverMovesACount(t *testing.T) {
	r := newRig(t, func(c *stream.Config) { c.MaxPaths = 3; c.TopReferrers = 2 })
	var evs []ev
	for i := range 6 {
		e := view(fmt.Sprintf("a%d", i), fmt.Sprintf("/p%d", i))
		e.ref = fmt.Sprintf("https://r%d.example/", i)
		evs = append(evs, e)
	}
	r.put("k/1", lines(evs...))
	r.poll()
	snap, _ := r.src.Snapshot()
	r.src = r.newSource()
	if err := r.src.Restore(snap); err != nil {
		t.Fatal(err)
	}
	// /p5 is now the most viewed; it still counts as other.
	evs = evs[:0]
	for i := range 10 {
		evs = append(evs, view(fmt.Sprintf("b%d", i), "/p5"))
	}
	evs = append(evs, view("c1", "/p0"))
	r.put("k/2", lines(evs...))
	r.poll()
	for path, want := range map[string]float64{"/p0": 2, "/p1": 1, "/p2": 1, "other": 13} {
		if got := r.value("mintlify_stream_page_views_total", "project", "proj-acme", "path", path, "traffic", "human"); got != want {
			t.Errorf("views of %s = %v, want %v", path, got, want)
		}
	}
	for ref, want := range map[string]float64{"r0.example": 1, "r1.example": 1, "other": 4, "none": 11} {
		if got := r.value("mintlify_stream_referrals_total", "project", "proj-acme", "referrer", ref); got != want {
			t.Errorf("referrals from %s = %v, want %v", ref, got, want)
		}
	}
}
