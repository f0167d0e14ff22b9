package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// The fake's data ends on testEnd; its clock stands a little later, so
// "today" is fixed.
var (
	testEnd   = time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)
	testClock = func() time.Time { return testEnd.Add(10 * time.Hour) }
)

const testProject = "proj-docs"

// harness is a fake API and a client pointed at it, with recorded retry
// sleeps and attempts.
type harness struct {
	t   *testing.T
	srv *mintlifytest.Server
	c   *client.Client

	mu       sync.Mutex
	sleeps   []time.Duration
	attempts []client.Attempt
}

// newHarness starts a fake with opts and a client whose retries do not
// sleep. edit may change the client's config before New.
func newHarness(t *testing.T, edit func(*client.Config), opts ...mintlifytest.Option) *harness {
	t.Helper()
	h := &harness{t: t}
	rig := apitest.NewRig(t, testClock(), opts...)
	h.srv = rig.Fake
	cfg := client.Config{
		UserAgent: "mintlify_exporter/test",
		Timeout:   5 * time.Second,
		Retry: client.RetryPolicy{
			Sleep: func(ctx context.Context, d time.Duration) error {
				h.mu.Lock()
				h.sleeps = append(h.sleeps, d)
				h.mu.Unlock()
				return ctx.Err()
			},
			Jitter: func(d time.Duration) time.Duration { return d },
		},
		Hooks: client.Hooks{Observe: func(a client.Attempt) {
			h.mu.Lock()
			h.attempts = append(h.attempts, a)
			h.mu.Unlock()
		}},
	}
	if edit != nil {
		edit(&cfg)
	}
	h.c = rig.Client(cfg)
	return h
}

// codes returns the Code of every observed attempt, in order.
func (h *harness) codes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.attempts))
	for i, a := range h.attempts {
		out[i] = a.Code()
	}
	return out
}

// recordedSleeps returns the retry delays asked for so far.
func (h *harness) recordedSleeps() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.sleeps...)
}

// requests returns the fake's request log once it holds at least every
// attempt the client observed since the last reset. The fake logs a request
// when its handler returns, which can be shortly after the client has read
// the whole answer (large bodies are flushed while the handler runs) or
// given up (timeouts), so the log is waited for, never read right away.
func (h *harness) requests() []mintlifytest.Request {
	h.t.Helper()
	n := len(h.codes())
	deadline := time.Now().Add(5 * time.Second)
	for {
		reqs := h.srv.Requests()
		if len(reqs) >= n {
			return reqs
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the fake logged %d requests, the client observed %d attempts", len(reqs), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// count is the number of logged requests to endpoint, once settled.
func (h *harness) count(endpoint string) int {
	h.t.Helper()
	n := 0
	for _, r := range h.requests() {
		if r.Endpoint == endpoint {
			n++
		}
	}
	return n
}

// waitRequests checks that the fake logged n requests to endpoint.
func (h *harness) waitRequests(endpoint string, n int) {
	h.t.Helper()
	if got := h.count(endpoint); got != n {
		h.t.Fatalf("fake logged %d %s requests, want %d", got, endpoint, n)
	}
}

// reset forgets recorded attempts, sleeps and, once settled, the fake's
// request log.
func (h *harness) reset() {
	h.t.Helper()
	h.requests()
	h.mu.Lock()
	h.attempts, h.sleeps = nil, nil
	h.mu.Unlock()
	h.srv.ResetRequests()
}

// generated returns a dataset with exactly paths rows over the 30 days
// ending with testEnd, and the range that covers it all.
func generated(paths int) (*mintlifytest.Dataset, client.DateRange) {
	r := client.DateRange{From: client.DateOf(testEnd).AddDays(-29), To: client.DateOf(testEnd).AddDays(1)}
	if paths == 0 {
		return mintlifytest.NewDataset(), r
	}
	return mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: int64(paths), Paths: paths, Days: 30, End: testEnd}), r
}

// expected is the fake's own answer for r, in the client's types.
func expected(srv *mintlifytest.Server, project string, r client.DateRange) (client.Counts, []client.PathCounts) {
	totals, rows := srv.Visitors(project, r.From.Time(), r.To.Time())
	return clientRows(totals, rows)
}

// clientRows converts the fake's totals and rows into the client's types.
func clientRows(totals mintlifytest.Counts, rows []mintlifytest.Row) (client.Counts, []client.PathCounts) {
	out := make([]client.PathCounts, len(rows))
	for i, row := range rows {
		out[i] = client.PathCounts{Path: row.Path, Counts: clientCounts(row.Counts)}
	}
	return clientCounts(totals), out
}

// clientCounts converts the fake's counts into the client's.
func clientCounts(c mintlifytest.Counts) client.Counts {
	return client.Counts{Human: float64(c.Human), AI: float64(c.AI), Total: float64(c.Total)}
}

// walkVisitors walks the unique visitors export for r to its end.
func walkVisitors(ctx context.Context, c *client.Client, project string, r client.DateRange,
	o client.WalkOptions) (*client.PathsResult, error) {
	w, err := client.NewWalk(c.PathsPage, client.EndpointVisitors, project, r, o)
	if err != nil {
		return nil, err
	}
	return w.All(ctx)
}
