package backfill_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// t0 is the test clock's start: 2025-03-10T12:00:00Z; yesterday is
// 2025-03-09.
var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// day returns 2025-03-01 plus n days.
func day(n int) client.Date { return client.Date{Year: 2025, Month: 3, Day: 1}.AddDays(n) }

// testPaths are the fake's pages; their counts differ by day.
var testPaths = []string{"/", "/quickstart", "/api-reference/users", "/guides/deploy", "/changelog"}

// fillDataset sets per-day counts for every path on the n days before t0's
// day, different for every day and path.
func fillDataset(n int) *mintlifytest.Dataset {
	d := mintlifytest.NewDataset()
	for k := 1; k <= n; k++ {
		dt := t0.AddDate(0, 0, -k)
		for i, p := range testPaths {
			human := int64(100*(len(testPaths)-i) + 7*k + i)
			ai := int64(10*(i+1) + (k*3)%11)
			d.Set(dt, p, human, ai, human+ai/2)
		}
	}
	return d
}

// harness is a fake API on a manual clock and what a run needs.
type harness struct {
	t       *testing.T
	rig     *apitest.Rig
	clock   *mintlifytest.Clock
	srv     *mintlifytest.Server
	dir     string
	perHour int
	sources []string
	filter  collector.PathFilter
	// beforeSend, when set, runs before each analytics request is allowed,
	// with its number from 1 (over every run of the harness).
	beforeSend func(n int) error

	mu    sync.Mutex
	sent  []time.Time // when each analytics request was allowed
	calls int
	out   bytes.Buffer // Out and Progress of the last run
}

func newHarness(t *testing.T, opts ...mintlifytest.Option) *harness {
	t.Helper()
	rig := apitest.NewRig(t, t0, append([]mintlifytest.Option{mintlifytest.WithProject("docs", fillDataset(60))}, opts...)...)
	return &harness{t: t, rig: rig, clock: rig.Clock, srv: rig.Fake, dir: t.TempDir(), perHour: backfill.DefaultRequestsPerHour, sources: []string{"visitors"}}
}

// path is a file in the harness's directory.
func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// waitUntil moves the clock to t.
func (h *harness) waitUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d := t.Sub(h.clock.Now()); d > 0 {
		h.clock.Advance(d)
	}
	return nil
}

// config returns a run's configuration with a new client, budget and
// sources, as a new process would have.
func (h *harness) config(from, to client.Date, output string) backfill.Config {
	h.t.Helper()
	budget := h.rig.Budget(h.perHour)
	c := h.rig.Client(client.Config{
		Retry: client.RetryPolicy{MaxAttempts: 2, Sleep: func(ctx context.Context, d time.Duration) error {
			return h.waitUntil(ctx, h.clock.Now().Add(d))
		}},
		Hooks: client.Hooks{Allow: func(ctx context.Context, e client.Endpoint) error {
			if e.Analytics() && h.beforeSend != nil {
				h.mu.Lock()
				n := h.calls + 1
				h.mu.Unlock()
				if err := h.beforeSend(n); err != nil {
					return err
				}
			}
			if err := budget.Allow(ctx, e); err != nil {
				return err
			}
			if e.Analytics() {
				h.mu.Lock()
				h.calls++
				h.sent = append(h.sent, h.clock.Now())
				h.mu.Unlock()
			}
			return nil
		}},
	})
	srcs, err := collector.Build(h.sources, c, collector.Options{PageSize: 2, MaxPages: 100, Filter: h.filter})
	if err != nil {
		h.t.Fatal(err)
	}
	h.out.Reset()
	return backfill.Config{
		From: from, To: to, Output: output,
		Sources: srcs, Projects: []string{"docs"}, Budget: budget,
		Args: []string{"--mintlify.api-url=" + h.srv.URL()},
		Now:  h.clock.Now, WaitUntil: h.waitUntil,
		Out: &h.out, Progress: &h.out,
	}
}

// run runs cfg and checks that the key was never printed.
func (h *harness) run(ctx context.Context, cfg backfill.Config) (*backfill.Result, error) {
	h.t.Helper()
	res, err := backfill.Run(ctx, cfg)
	if strings.Contains(h.out.String(), mintlifytest.DefaultKey) || err != nil && strings.Contains(err.Error(), mintlifytest.DefaultKey) {
		h.t.Errorf("the API key was printed")
	}
	return res, err
}

// mustRun runs cfg and fails unless it completed.
func (h *harness) mustRun(cfg backfill.Config) *backfill.Result {
	h.t.Helper()
	res, err := h.run(context.Background(), cfg)
	if err != nil || backfill.ExitCode(res, err) != backfill.ExitOK {
		h.t.Fatalf("run: exit %d, %v\n%s", backfill.ExitCode(res, err), err, h.out.String())
	}
	return res
}

// requestedDays returns, for each dateFrom of the visitors requests the
// fake answered 200, how many times it was asked.
func (h *harness) requestedDays() map[string]int {
	out := map[string]int{}
	for _, r := range h.srv.Requests() {
		if r.Endpoint == mintlifytest.EndpointVisitors && r.Status == 200 {
			out[r.Query.Get("dateFrom")+" offset "+r.Query.Get("offset")]++
		}
	}
	return out
}

// point is one sample of the output.
type point struct {
	value float64
	ts    int64
}

// omLine matches a sample line: name, labels, value, timestamp.
var omLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\} (\S+) (-?\d+)$`)

// parseOpenMetrics checks the output's shape (families contiguous with
// HELP and TYPE gauge first, series contiguous and in time order, "# EOF"
// last and only once) and returns its samples by series ("name{labels}").
func parseOpenMetrics(t *testing.T, data []byte) map[string][]point {
	t.Helper()
	out := map[string][]point{}
	seenFamily := map[string]bool{}
	family, lastSeries := "", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	lines := 0
	eof := false
	for sc.Scan() {
		line := sc.Text()
		lines++
		if eof {
			t.Fatalf("line %d after # EOF: %q", lines, line)
		}
		switch {
		case line == "# EOF":
			eof = true
		case strings.HasPrefix(line, "# HELP "):
			name := strings.Fields(line)[2]
			if seenFamily[name] {
				t.Fatalf("line %d: family %s is not contiguous", lines, name)
			}
			seenFamily[name], family = true, name
		case strings.HasPrefix(line, "# TYPE "):
			if f := strings.Fields(line); len(f) != 4 || f[2] != family || f[3] != "gauge" {
				t.Fatalf("line %d: %q, want # TYPE %s gauge", lines, line, family)
			}
		default:
			m := omLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("line %d is not a sample: %q", lines, line)
			}
			if m[1] != family {
				t.Fatalf("line %d: sample of %s inside family %s", lines, m[1], family)
			}
			v, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				t.Fatalf("line %d: value: %v", lines, err)
			}
			ts, _ := strconv.ParseInt(m[4], 10, 64)
			s := m[1] + "{" + m[2] + "}"
			if pts, ok := out[s]; ok {
				if s != lastSeries {
					t.Fatalf("line %d: series %s is not contiguous", lines, s)
				}
				if ts <= pts[len(pts)-1].ts {
					t.Fatalf("line %d: series %s goes back in time", lines, s)
				}
			}
			lastSeries = s
			out[s] = append(out[s], point{v, ts})
		}
	}
	if !eof {
		t.Fatal("no # EOF at the end")
	}
	return out
}

// readOutput reads and parses a file.
func readOutput(t *testing.T, path string) ([]byte, map[string][]point) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, parseOpenMetrics(t, data)
}

// expectSite checks the site-wide series of days against the fake.
func (h *harness) expectSite(series map[string][]point, days []client.Date) {
	h.t.Helper()
	want := map[string][]point{}
	for _, d := range days {
		totals, _ := h.srv.Visitors("docs", d.Time(), d.AddDays(1).Time())
		ts := d.AddDays(1).Time().Unix() - 1
		add := func(s string, v int64) { want[s] = append(want[s], point{float64(v), ts}) }
		add(`mintlify_visitors{project="docs",window="1d",traffic="human"}`, totals.Human)
		add(`mintlify_visitors{project="docs",window="1d",traffic="ai"}`, totals.AI)
		add(`mintlify_visitors_deduplicated{project="docs",window="1d"}`, totals.Total)
	}
	for s, pts := range want {
		if !slices.Equal(series[s], pts) {
			h.t.Errorf("%s:\n got %v\nwant %v", s, series[s], pts)
		}
	}
}

// dates returns n days from first.
func dates(first client.Date, n int) []client.Date {
	out := make([]client.Date, n)
	for i := range out {
		out[i] = first.AddDays(i)
	}
	return out
}

// maxInSlidingHour returns the most requests sent within any hour.
func maxInSlidingHour(times []time.Time) int {
	most := 0
	for i := range times {
		n := 0
		for _, u := range times[:i+1] {
			if times[i].Sub(u) < time.Hour {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

func (h *harness) String() string { return fmt.Sprintf("output:\n%s", h.out.String()) }
