package collector

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// The fault table: every row programs one misbehaviour of the upstream API
// into the fake, lets it last for faultPeriod of simulated time with a
// scrape every faultScrapeEvery, then clears it. The clock is injected:
// nothing sleeps (except the timeout row, whose client timeout is real
// time by nature).

const (
	faultProject     = "docs"
	faultWindow      = "1d"
	faultPaths       = 600 // three pages of 250, 250 and 100 rows
	faultPages       = 3
	faultMaxPages    = 10
	faultPerHour     = 90
	faultPeriod      = 20 * time.Minute
	faultScrapeEvery = 15 * time.Second
	// faultShortPeriod caps a fault's period under -short.
	faultShortPeriod = time.Minute
	// faultAttempts is the client's default number of attempts.
	faultAttempts = client.DefaultMaxAttempts
)

// faultDataset has faultPaths paths, all on day0, so the 1d window walk
// has exactly faultPages pages.
func faultDataset() *mintlifytest.Dataset {
	return mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 42, Paths: faultPaths, Days: 1, End: day0})
}

// faultSent is one HTTP request the client sent.
type faultSent struct {
	at     time.Time // test clock
	offset string
	auth   bool // carried an Authorization header
}

// faultTransport counts the requests the client sends, synchronously, by
// the test clock: requests the fake abandoned (timeouts, resets) are
// counted too.
type faultTransport struct {
	base  http.RoundTripper
	clock *mintlifytest.Clock
	mu    sync.Mutex
	sent  []faultSent
}

func (tr *faultTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("limit") == "1" {
		// The window's totals unit: not the walk the table is about.
		return tr.base.RoundTrip(r)
	}
	tr.mu.Lock()
	tr.sent = append(tr.sent, faultSent{at: tr.clock.Now(), offset: r.URL.Query().Get("offset"), auth: r.Header.Get("Authorization") != ""})
	tr.mu.Unlock()
	return tr.base.RoundTrip(r)
}

func (tr *faultTransport) since(i int) []faultSent {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]faultSent(nil), tr.sent[i:]...)
}

func (tr *faultTransport) count() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.sent)
}

// faultRefresh is the requests one refresh sent: every request sent at one
// instant of the test clock (the clock stands still during a scrape).
type faultRefresh struct {
	at       time.Time
	requests int
	byOffset map[string]int
}

func faultRefreshes(sent []faultSent) []faultRefresh {
	var out []faultRefresh
	for _, s := range sent {
		if len(out) == 0 || !out[len(out)-1].at.Equal(s.at) {
			out = append(out, faultRefresh{at: s.at, byOffset: map[string]int{}})
		}
		r := &out[len(out)-1]
		r.requests++
		r.byOffset[s.offset]++
	}
	return out
}

// faultOptions tunes the client of one row.
type faultOptions struct {
	// timeout is the per-attempt timeout (--mintlify.timeout); 2s when 0.
	timeout time.Duration
}

// faultEnv is a visitors fixture whose client counts its requests and
// records the retry delays it asks for instead of sleeping.
type faultEnv struct {
	*visitorsFixture
	sent *faultTransport
	hc   *http.Client
	// faultAt is when the fault starts: the clock moves there right after
	// the fault is installed.
	faultAt time.Time

	mu     sync.Mutex
	delays []time.Duration
}

func newFaultEnv(t *testing.T, o faultOptions) *faultEnv {
	t.Helper()
	clock := mintlifytest.NewClock(day0)
	fx := &visitorsFixture{t: t, clock: clock, logs: &logbuf.Buffer{}}
	fx.srv = mintlifytest.NewServer(mintlifytest.WithClock(clock.Now), mintlifytest.WithProject(faultProject, faultDataset()))
	fx.budget = NewBudget(faultPerHour, clock.Now)
	fx.status = NewStatus()
	e := &faultEnv{visitorsFixture: fx}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil
	e.sent = &faultTransport{base: base, clock: clock}
	e.hc = &http.Client{Transport: e.sent, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Cleanup(e.close)
	if o.timeout == 0 {
		o.timeout = 2 * time.Second
	}
	c := apitest.Client(t, fx.srv, client.Config{HTTPClient: e.hc, Timeout: o.timeout,
		Retry: client.RetryPolicy{Sleep: e.sleep},
		Hooks: client.Hooks{Allow: fx.budget.Allow},
		Now:   clock.Now})
	w, err := ParseWindow(faultWindow)
	if err != nil {
		t.Fatal(err)
	}
	fx.v, err = newVisitorsEngine(visitorsConfig{
		Client: c, Projects: []string{faultProject}, Windows: []Window{w}, MinInterval: 15 * time.Minute,
		PageSize: 250, MaxPages: faultMaxPages,
		Budget: fx.budget, Status: fx.status, Logger: log.NewLogfmtLogger(fx.logs), Clock: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// sleep is the client's retry sleep: it records the delay and returns at
// once.
func (e *faultEnv) sleep(ctx context.Context, d time.Duration) error {
	e.mu.Lock()
	e.delays = append(e.delays, d)
	e.mu.Unlock()
	return ctx.Err()
}

// close stops everything the env started; it may be called more than once.
func (e *faultEnv) close() {
	e.v.Close()
	e.srv.Close()
	e.hc.CloseIdleConnections()
}

// fakeRows is what the fake answers now for the walk, path to counts.
func (e *faultEnv) fakeRows() map[string]client.Counts {
	r := client.LastNDays(e.clock.Now(), 1)
	_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
	out := make(map[string]client.Counts, len(rows))
	for _, row := range rows {
		out[row.Path] = client.Counts{Human: float64(row.Human), AI: float64(row.AI), Total: float64(row.Total)}
	}
	return out
}

// faultExported parses the current exposition with the Prometheus text
// parser and returns the exported page series of the walk, path to counts.
// A series exported twice is an error.
func faultExported(t *testing.T, expo *Exposition) map[string]client.Counts {
	t.Helper()
	var text bytes.Buffer
	if err := expo.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text.Bytes()))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	out := map[string]client.Counts{}
	seen := map[string]bool{}
	for _, name := range []string{"mintlify_page_visitors", "mintlify_page_visitors_deduplicated"} {
		for _, m := range fams[name].GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			if l["project"] != faultProject || l["window"] != faultWindow {
				continue
			}
			id := name + "\x00" + l["path"] + "\x00" + l["traffic"]
			if seen[id] {
				t.Fatalf("series exported twice: %s{path=%q,traffic=%q}", name, l["path"], l["traffic"])
			}
			seen[id] = true
			c := out[l["path"]]
			v := m.GetGauge().GetValue()
			switch {
			case name == "mintlify_page_visitors_deduplicated":
				c.Total = v
			case l["traffic"] == "human":
				c.Human = v
			default:
				c.AI = v
			}
			out[l["path"]] = c
		}
	}
	return out
}

// faultSameRows fails when got and want differ, naming a few differences.
func faultSameRows(t *testing.T, what string, got, want map[string]client.Counts) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing %q", p))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%q = %+v, want %+v", p, g, w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("unexpected %q", p))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("%s: %d of %d exported paths differ from the expectation, e.g. %v", what, len(diffs), len(want), diffs[:min(5, len(diffs))])
	}
}

// faultRow is one row of the fault table.
type faultRow struct {
	name string
	opts faultOptions
	// install programs the fault; remove undoes it.
	install func(e *faultEnv) (remove func())
	// fails says refreshes fail while the fault lasts. When false they
	// succeed and want gives the rows the snapshot must export, from the
	// fake's rows before the fault.
	fails bool
	want  func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts
	// offset is the offset of the faulty page ("" for every page) and
	// attempts how many times a failing refresh must send it.
	offset   string
	attempts int
	// maxPerRefresh bounds the requests of one refresh.
	maxPerRefresh int
	// gap is the shortest time allowed between two failing refreshes.
	gap time.Duration
	// logs is what the logged error must say.
	logs string
	// doc is the table's "What the exporter does" column.
	doc string
	// period is how long the fault lasts on the test clock; faultPeriod
	// when 0.
	period time.Duration
}

// faultResult is what a row observed, for the table.
type faultResult struct {
	refreshes     int
	minPerRefresh int
	maxPerRefresh int
	recoveredIn   time.Duration
	period        time.Duration // how long the fault lasted
}

func faultMutateRow(offset int, fn func(row map[string]any)) func(*faultEnv) func() {
	return func(e *faultEnv) func() {
		return e.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: offset, Mutate: func(b map[string]any) {
			if rows, ok := b["visitors"].([]any); ok && len(rows) > 0 {
				fn(rows[0].(map[string]any))
			}
		}})
	}
}

func faultAdd(f mintlifytest.Fault) func(*faultEnv) func() {
	return func(e *faultEnv) func() {
		f.Endpoint = mintlifytest.EndpointVisitors
		return e.srv.AddFault(f)
	}
}

// faultRows is the fault table. A 5xx or transport failure is retried
// (faultAttempts attempts); a bad answer is not.
func faultRows() []faultRow {
	const retried = faultPages - 1 + faultAttempts
	var rows []faultRow
	for _, st := range []int{500, 502, 503, 504} {
		rows = append(rows, faultRow{
			name: fmt.Sprintf("HTTP %d on page 2 of 3", st), install: faultAdd(mintlifytest.Fault{Offset: 250, Status: st}),
			fails: true, offset: "250", attempts: faultAttempts, maxPerRefresh: retried,
			logs: fmt.Sprintf("HTTP %d", st),
			doc:  fmt.Sprintf("retries the page (%d attempts, capped exponential backoff with jitter), then fails the refresh; serves the last snapshot; refreshes again after 30 s, 1 m, 2 m … up to the refresh interval", faultAttempts),
		})
	}
	rows = append(rows,
		faultRow{
			name: "timeout (answer later than --mintlify.timeout)", opts: faultOptions{timeout: 200 * time.Millisecond},
			install: faultAdd(mintlifytest.Fault{Offset: 250, Delay: 5 * time.Second}),
			fails:   true, offset: "250", attempts: faultAttempts, maxPerRefresh: retried, logs: "no answer within 200ms",
			doc: "each attempt is cut at the timeout and retried like a 5xx; then as a 5xx",
			// Each attempt waits out a real 200 ms: four failing refreshes
			// (0, 30 s, 1 m 30 s, 3 m 30 s) show the backoff in half the
			// real time of the other rows' 20 minutes; under -short, one.
			period: timeoutRowPeriod(),
		},
		faultRow{
			name: "connection reset", install: faultAdd(mintlifytest.Fault{Offset: 250, Reset: true}),
			fails: true, offset: "250", attempts: faultAttempts, maxPerRefresh: retried, logs: "offset 250",
			doc: "retried like a 5xx (a GET is idempotent); then as a 5xx",
		},
		faultRow{
			name: "truncated body", install: faultAdd(mintlifytest.Fault{Offset: 250, Truncate: true}),
			fails: true, offset: "250", attempts: faultAttempts, maxPerRefresh: retried, logs: "unexpected EOF",
			doc: "the short read is an error, retried like a 5xx; never a partial page",
		},
		faultRow{
			name: "malformed JSON", install: faultAdd(mintlifytest.Fault{Offset: 250, Body: `{"totals": {"human": 1,`}),
			fails: true, offset: "250", attempts: 1, maxPerRefresh: faultPages, logs: "malformed JSON",
			doc: "not retried (the answer will not change); the refresh fails, the last snapshot stays",
		},
		faultRow{
			name:    "wrong JSON type (a count as a string)",
			install: faultMutateRow(250, func(row map[string]any) { row["human"] = "12" }),
			want:    faultWithoutRow(250),
			doc:     "not a failure: the malformed row is skipped and counted (bad_count); the rest of the refresh is kept",
		},
		faultRow{
			name: "wrong JSON type (hasMore as a string)",
			install: func(e *faultEnv) func() {
				return faultMutate(e, 250, func(b map[string]any) { b["hasMore"] = "false" })
			},
			fails: true, offset: "250", attempts: 1, maxPerRefresh: faultPages, logs: "hasMore: wrong type: string, want boolean",
			doc: "as above",
		},
		faultRow{
			name:    "negative count",
			install: faultMutateRow(250, func(row map[string]any) { row["ai"] = json.Number("-3") }),
			want:    faultWithoutRow(250),
			doc:     "not a failure: the malformed row is skipped and counted (bad_count); the rest of the refresh is kept",
		},
		faultRow{
			name:    "fractional count",
			install: faultMutateRow(250, func(row map[string]any) { row["total"] = json.Number("2.5") }),
			want: func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts {
				r := client.LastNDays(e.clock.Now(), 1)
				_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
				out := maps.Clone(before)
				c := out[rows[250].Path]
				c.Total = 2.5
				out[rows[250].Path] = c
				return out
			},
			doc: "not a failure: counts are JSON numbers (12.0 and 1e3 are read as 12 and 1000)",
		},
	)
	for _, field := range []string{"totals", "visitors", "hasMore"} {
		rows = append(rows, faultRow{
			name:    "missing " + field,
			install: func(e *faultEnv) func() { return faultMutate(e, 250, func(b map[string]any) { delete(b, field) }) },
			fails:   true, offset: "250", attempts: 1, maxPerRefresh: faultPages, logs: field + ": missing",
			doc: "a required field is missing: malformed, not retried; the refresh fails",
		})
	}
	var endless atomic.Int64
	rows = append(rows,
		faultRow{
			name: "hasMore true with an empty page", install: faultAdd(mintlifytest.Fault{Offset: 250, EmptyPage: true, HasMoreForever: true}),
			want: func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts {
				// The API's rule: while hasMore is true, the next page is
				// at offset + limit. The rows the empty page did not send
				// are not exported.
				r := client.LastNDays(e.clock.Now(), 1)
				_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
				out := map[string]client.Counts{}
				for p, c := range before {
					out[p] = c
				}
				for _, row := range rows[250:500] {
					delete(out, row.Path)
				}
				return out
			},
			doc: "not a failure: the walk follows the API's rule (offset + limit while hasMore is true) to the next page; the rows the empty page did not send are not exported. Empty pages without end stop at MaxPages, as endless pages do",
		},
		faultRow{
			name: "endless pages (hasMore always true, rows never end)",
			install: faultAdd(mintlifytest.Fault{Offset: mintlifytest.AnyOffset, HasMoreForever: true, Mutate: func(b map[string]any) {
				if rows, _ := b["visitors"].([]any); len(rows) == 0 {
					n := endless.Add(1)
					b["visitors"] = []any{map[string]any{"path": fmt.Sprintf("/endless/%d", n), "human": 1, "ai": 0, "total": 1}}
				}
			}}),
			fails: true, offset: "", maxPerRefresh: faultMaxPages, logs: "too many pages",
			doc: fmt.Sprintf("the walk stops with an error after MaxPages pages (%d here, 1000 in the binary); the budget is checked before every page", faultMaxPages),
		},
		faultRow{
			name: "duplicate paths across pages", install: faultAdd(mintlifytest.Fault{Offset: 250, DuplicateRows: true}),
			want: func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts { return before },
			doc:  "not a failure: the repeated path is exported once, with its first values",
		},
		faultRow{
			name: "rows shift down between pages (a path appears at the top mid-walk)",
			install: func(e *faultEnv) func() {
				shifted := faultDataset()
				shifted.Set(day0, "/new-hot-page", 100000, 0, 100000)
				// AfterN: the totals unit's request (limit=1) goes first.
				return e.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 0, AfterN: 1, Times: 1,
					Mutate: func(map[string]any) { e.srv.SetProject(faultProject, shifted) }})
			},
			want: func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts { return before },
			doc:  "not a failure: the row pushed onto the next page is seen twice and exported once; the new path appears at the next refresh",
		},
		faultRow{
			name: "rows shift up between pages (the top path vanishes mid-walk)",
			install: func(e *faultEnv) func() {
				r := client.LastNDays(e.clock.Now(), 1)
				_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
				shrunk := mintlifytest.NewDataset()
				for _, row := range rows[1:] {
					shrunk.Set(day0, row.Path, row.Human, row.AI, row.Total)
				}
				return e.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 0, AfterN: 1, Times: 1,
					Mutate: func(map[string]any) { e.srv.SetProject(faultProject, shrunk) }})
			},
			want: func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts {
				// Offset pagination of a moving list: the row that moved
				// from page 2 onto page 1 after page 1 was read is missed,
				// the vanished top row is still exported, until the next
				// refresh. Never a duplicate, never a wrong value.
				r := client.LastNDays(e.clock.Now(), 1)
				_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
				missed := rows[249].Path // new row 249 was old row 250
				out := map[string]client.Counts{}
				for p, c := range before {
					if p != missed {
						out[p] = c
					}
				}
				return out
			},
			doc: "not a failure: offset paging of a changing list may miss a row that moved up (it comes back at the next refresh); never a duplicate or a wrong value",
		},
		faultRow{
			name: "401: key revoked",
			install: func(e *faultEnv) func() {
				e.srv.RevokeKey(mintlifytest.DefaultKey)
				return func() { e.srv.SetKeys(mintlifytest.DefaultKey) }
			},
			fails: true, offset: "", maxPerRefresh: 1, logs: "the admin API key was refused",
			doc: "not retried; the log says to check the key; the last snapshot stays; the key file is re-read before every attempt",
		},
		faultRow{
			name: "403", install: faultAdd(mintlifytest.Fault{Offset: mintlifytest.AnyOffset, Status: 403}),
			fails: true, offset: "", maxPerRefresh: 1, logs: "this IP is not on the organization's allowlist, or the key lacks the read scope",
			doc: "as 401, but the log says why a valid key is refused: the IP allowlist or the read scope",
		},
		faultRow{
			name: "429 with Retry-After: 600 (seconds)", install: faultAdd(mintlifytest.Fault{Offset: 250, Status: 429, RetryAfter: "600"}),
			fails: true, offset: "250", attempts: 1, maxPerRefresh: faultPages, gap: 10 * time.Minute, logs: "HTTP 429",
			doc: "not retried; every analytics request (all projects and windows) pauses until Retry-After",
		},
		faultRow{
			name: "429 with Retry-After as an HTTP date (+20 m)",
			install: func(e *faultEnv) func() {
				at := e.faultAt.Add(20 * time.Minute).UTC().Format(http.TimeFormat)
				return e.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 250, Status: 429, RetryAfter: at})
			},
			fails: true, offset: "250", attempts: 1, maxPerRefresh: faultPages, gap: 20 * time.Minute, logs: "HTTP 429",
			doc: "as with seconds: paused until that date",
		},
		faultRow{
			name: "429 without Retry-After", install: faultAdd(mintlifytest.Fault{Offset: 250, Status: 429}),
			fails: true, offset: "250", attempts: 1, maxPerRefresh: faultPages, gap: rateLimitBackoffBase, logs: "HTTP 429",
			doc: "paused for a backoff of 2 m, doubling for each further 429 up to 1 h",
		},
		faultRow{
			name:    "oversized body (over the endpoint's cap)",
			install: faultAdd(mintlifytest.Fault{Offset: 250, Body: `{"totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":false,"padding":"` + strings.Repeat("x", int(client.EndpointVisitors.MaxBody())) + `"}`}),
			fails:   true, offset: "250", attempts: 1, maxPerRefresh: faultPages, logs: "response body too large",
			doc: "read up to the endpoint's cap (8 MiB for visitors) and refused, never cut silently; not retried",
		},
		faultRow{
			name: "invalid UTF-8 in a path",
			install: faultMutateRow(250, func(row map[string]any) {
				row["path"] = json.RawMessage("\"/bad\xff\xfe-path\"")
			}),
			want: func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts {
				r := client.LastNDays(e.clock.Now(), 1)
				_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
				out := map[string]client.Counts{}
				for p, c := range before {
					out[p] = c
				}
				delete(out, rows[250].Path)
				out["/bad\uFFFD-path"] = before[rows[250].Path]
				return out
			},
			doc: "not a failure: invalid bytes become U+FFFD in the label (paths equal after that are merged); the scrape stays valid",
		},
	)
	return rows
}

// faultWithoutRow is the want of a fault that makes row i (of the whole
// walk) malformed: every row but that one.
func faultWithoutRow(i int) func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts {
	return func(e *faultEnv, before map[string]client.Counts) map[string]client.Counts {
		r := client.LastNDays(e.clock.Now(), 1)
		_, rows := e.srv.Visitors(faultProject, r.From.Time(), r.To.Time())
		out := maps.Clone(before)
		delete(out, rows[i].Path)
		return out
	}
}

// faultMutate edits the JSON object of the visitors page at offset.
func faultMutate(e *faultEnv, offset int, fn func(map[string]any)) func() {
	return e.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: offset, Mutate: fn})
}

// faultLines counts the log lines containing s.
func faultLines(logs, s string) int {
	n := 0
	for line := range strings.SplitSeq(logs, "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// faultWalkLines counts the walk's log lines that hold s, not those of the
// window's totals unit (window=1d:site).
func faultWalkLines(logs, s string) int {
	n := 0
	for line := range strings.SplitSeq(logs, "\n") {
		if strings.Contains(line, s) && !strings.Contains(line, "window="+faultWindow+":site") {
			n++
		}
	}
	return n
}

// faultPageText is the walk's part of an exposition: its page series.
func faultPageText(t *testing.T, expo *Exposition) string {
	t.Helper()
	var text bytes.Buffer
	if err := expo.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for line := range strings.SplitSeq(text.String(), "\n") {
		if strings.HasPrefix(line, "mintlify_page_visitors") || strings.HasPrefix(line, "mintlify_visitors_paths") {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}

func TestFaultTable(t *testing.T) {
	// The rows run in parallel, each with its own fake, clock and engine;
	// every goroutine they started must be gone once all have ended.
	running := goleak.IgnoreCurrent()
	rows := faultRows()
	results := make([]faultResult, len(rows))
	passed := make([]bool, len(rows))
	t.Run("rows", func(t *testing.T) {
		for i, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				t.Parallel()
				results[i] = runFaultRow(t, row)
				passed[i] = !t.Failed()
			})
		}
	})
	goleak.VerifyNone(t, running)
	var table strings.Builder
	table.WriteString("| Fault | What the exporter does | mintlify_up | Requests |\n|---|---|---|---|\n")
	for i, row := range rows {
		res := results[i]
		up, reqs := "0 while it lasts, 1 after", ""
		switch {
		case !passed[i]:
			up, reqs = "FAILED", "FAILED"
		case row.fails:
			reqs = fmt.Sprintf("%d failing refreshes in %s, %d–%d requests each; recovered %s after the fault cleared",
				res.refreshes, res.period, res.minPerRefresh, res.maxPerRefresh, res.recoveredIn)
		default:
			up = "stays 1"
			reqs = fmt.Sprintf("%d per refresh, as without the fault", res.maxPerRefresh)
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s |\n", row.name, row.doc, up, reqs)
	}
	t.Logf("fault table:\n%s", table.String())
}

// timeoutRowPeriod is how long the timeout row's fault lasts on the test
// clock: under -short one failing refresh (the other rows show the
// backoff), else four.
func timeoutRowPeriod() time.Duration {
	if testing.Short() {
		return faultScrapeEvery
	}
	return 4 * time.Minute
}

// runFaultRow runs one row: a good snapshot, the fault for its period,
// then recovery.
func runFaultRow(t *testing.T, row faultRow) faultResult {
	t.Helper()
	e := newFaultEnv(t, row.opts)
	var res faultResult

	e.scrape()
	if !e.status.Up(faultProject, SourceVisitors) {
		t.Fatalf("no good snapshot before the fault; logs:\n%s", e.logs)
	}
	// The walk's part of the exposition: the window's totals are a unit
	// of their own, with requests of their own.
	goodExpo := e.v.Exposition()
	good := faultPageText(t, goodExpo)
	before := e.fakeRows()
	faultSameRows(t, "good snapshot", faultExported(t, e.v.Exposition()), before)
	start := e.sent.count()

	// The snapshot is due 16 minutes on; the worker goes as the clock
	// moves, so the fault is in place before.
	e.faultAt = e.clock.Now().Add(16 * time.Minute)
	remove := row.install(e)
	e.clock.Advance(16 * time.Minute)
	res.period = cmp.Or(row.period, faultPeriod)
	if testing.Short() {
		// Two failing refreshes (0 and 30 s) still show the retries,
		// the first backoff and the kept snapshot; make test runs the
		// whole period.
		res.period = min(res.period, faultShortPeriod)
	}
	end := e.clock.Now().Add(res.period)
	first := true
	for e.clock.Now().Before(end) {
		e.scrape()
		if used := e.budget.Used(); used > faultPerHour {
			t.Fatalf("%d analytics requests in the last hour, over the budget of %d", used, faultPerHour)
		}
		switch {
		case row.fails:
			// An exposition is never changed once published: only a new
			// one is rendered again.
			if x := e.v.Exposition(); x != goodExpo {
				if faultPageText(t, x) != good {
					t.Fatal("the last good snapshot was replaced during a failure")
				}
				goodExpo = x
			}
			if e.status.Up(faultProject, SourceVisitors) {
				t.Fatalf("mintlify_up is 1 during the fault; logs:\n%s", e.logs)
			}
		case first:
			if !e.status.Up(faultProject, SourceVisitors) {
				t.Fatalf("mintlify_up is 0 after a refresh that should succeed; logs:\n%s", e.logs)
			}
			if st := e.v.States(); st[len(st)-1].Completed.Before(e.clock.Now()) {
				t.Fatal("no new snapshot")
			}
			faultSameRows(t, "snapshot under the fault", faultExported(t, e.v.Exposition()), row.want(e, before))
		}
		first = false
		e.clock.Advance(faultScrapeEvery)
	}

	if row.fails && faultPageText(t, e.v.Exposition()) != good {
		t.Fatal("the last good exposition changed during a failure")
	}
	refreshes := faultRefreshes(e.sent.since(start))
	res.refreshes = len(refreshes)
	res.minPerRefresh = 1 << 30
	for i, r := range refreshes {
		res.minPerRefresh = min(res.minPerRefresh, r.requests)
		res.maxPerRefresh = max(res.maxPerRefresh, r.requests)
		if !row.fails {
			if r.requests != faultPages {
				t.Errorf("refresh at %s sent %d requests, want %d", r.at.Format(time.TimeOnly), r.requests, faultPages)
			}
			continue
		}
		if r.requests > row.maxPerRefresh {
			t.Errorf("refresh at %s sent %d requests, want at most %d", r.at.Format(time.TimeOnly), r.requests, row.maxPerRefresh)
		}
		if row.attempts > 0 && r.byOffset[row.offset] != row.attempts {
			t.Errorf("refresh at %s sent the faulty page %d times, want %d (retries capped)", r.at.Format(time.TimeOnly), r.byOffset[row.offset], row.attempts)
		}
		if i > 0 {
			gap := r.at.Sub(refreshes[i-1].at)
			if gap < max(row.gap, failureBackoffBase) {
				t.Errorf("a failing refresh %s after the previous one, want at least %s (no hot loop)", gap, max(row.gap, failureBackoffBase))
			}
		}
	}
	if row.fails {
		// Backoff 30 s, 1 m, 2 m, 4 m, 8 m after the first failure: six
		// refreshes in 20 minutes at most.
		if res.refreshes < 1 || res.refreshes > 6 {
			t.Errorf("%d failing refreshes in %s, want 1..6", res.refreshes, res.period)
		}
		e.mu.Lock()
		for _, d := range e.delays {
			if d > client.DefaultMaxDelay {
				t.Errorf("a retry delay of %s, over the cap of %s", d, client.DefaultMaxDelay)
			}
		}
		e.mu.Unlock()
		logs := e.logs.String()
		if n := faultWalkLines(logs, "visitors refresh failed"); n != 1 {
			t.Errorf("the failure was logged %d times over %d refreshes, want once:\n%s", n, res.refreshes, logs)
		}
		if !strings.Contains(logs, row.logs) {
			t.Errorf("the log does not say %q:\n%s", row.logs, logs)
		}
		if n := faultLines(logs, "rate limit (100 analytics requests per organization per hour) was hit"); n > res.refreshes {
			t.Errorf("the rate limit was logged %d times for %d refreshes", n, res.refreshes)
		}
	} else if n := faultLines(e.logs.String(), "level=error"); n != 0 {
		t.Errorf("errors logged for a fault that is not a failure:\n%s", e.logs)
	}
	if strings.Contains(e.logs.String(), mintlifytest.DefaultKey) {
		t.Error("the key appears in the log")
	}

	// The fault clears: the next due refresh succeeds and exports exactly
	// what the API says.
	remove()
	cleared, sentAtClear := e.clock.Now(), e.sent.count()
	for !e.status.Up(faultProject, SourceVisitors) || e.sent.count() == sentAtClear {
		if e.clock.Now().Sub(cleared) > 40*time.Minute {
			t.Fatalf("not recovered 40 minutes after the fault cleared; logs:\n%s", e.logs)
		}
		e.clock.Advance(faultScrapeEvery)
		e.scrape()
	}
	res.recoveredIn = e.clock.Now().Sub(cleared)
	faultSameRows(t, "snapshot after recovery", faultExported(t, e.v.Exposition()), e.fakeRows())
	if row.fails {
		if n := faultWalkLines(e.logs.String(), "visitors refresh succeeded again"); n != 1 {
			t.Errorf("recovery logged %d times, want once", n)
		}
	}

	e.close()
	return res
}
