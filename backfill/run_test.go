package backfill_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

func TestSiteFiguresPerDay(t *testing.T) {
	h := newHarness(t)
	out := h.path("history.om")
	res := h.mustRun(h.config(day(0), day(7), out))
	if res.Fetches != 8 || res.Fetched != 8 || res.Requests != 8 {
		t.Errorf("fetches %d, fetched %d, requests %d; want 8 each", res.Fetches, res.Fetched, res.Requests)
	}
	_, series := readOutput(t, out)
	h.expectSite(series, dates(day(0), 8))
	for s := range series {
		if !strings.HasPrefix(s, "mintlify_visitors{") && !strings.HasPrefix(s, "mintlify_visitors_deduplicated{") {
			t.Errorf("site-only backfill wrote %s", s)
		}
	}
	if len(series) != 3 {
		t.Errorf("%d series, want 3", len(series))
	}
	for _, r := range h.srv.Requests() {
		if r.Query.Get("limit") != "1" {
			t.Errorf("site-only request with limit=%q, want 1", r.Query.Get("limit"))
		}
		from, _ := client.ParseDate(r.Query.Get("dateFrom"))
		if to := r.Query.Get("dateTo"); to != from.AddDays(1).String() {
			t.Errorf("dateFrom=%s dateTo=%s: want one day", from, to)
		}
	}
	if _, err := os.Stat(backfill.JournalPath(out)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal of a complete run is still there: %v", err)
	}
	for _, want := range []string{"cost: 8 requests (8 days × 1 source × 1 project)", "time: no waiting: the requests fit in the hour's budget of 40", "done: 8 fetches, 8 requests"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, h.out.String())
		}
	}
}

func TestPagesFollowFiltersAndMaxPaths(t *testing.T) {
	h := newHarness(t)
	h.filter = collector.PathFilter{Exclude: regexp.MustCompile(`^/changelog$`), MaxPaths: 3}
	out := h.path("pages.om")
	cfg := h.config(day(2), day(4), out)
	cfg.Pages = true
	res := h.mustRun(cfg)
	// 5 paths at 2 a page, sorted by count: the walk stops at the page
	// that completes the top 3 the filter keeps, 2 pages a day of 3.
	if res.Requests != 6 {
		t.Errorf("requests %d, want 6 (2 pages a day)", res.Requests)
	}
	_, series := readOutput(t, out)
	h.expectSite(series, dates(day(2), 3))
	for _, d := range dates(day(2), 3) {
		_, rows := h.srv.Visitors("docs", d.Time(), d.AddDays(1).Time())
		ts := d.AddDays(1).Time().Unix() - 1
		kept := 0
		for _, r := range rows {
			s := `mintlify_page_visitors_deduplicated{project="docs",window="1d",path="` + r.Path + `"}`
			got := slices.IndexFunc(series[s], func(p point) bool { return p.ts == ts })
			if r.Path == "/changelog" || kept == 3 {
				if got >= 0 {
					t.Errorf("%s %s: exported despite the filter or max-paths", d, r.Path)
				}
				continue
			}
			kept++
			if got < 0 || series[s][got].value != float64(r.Total) {
				t.Errorf("%s %s: got %v, want %d at %d", d, r.Path, series[s], r.Total, ts)
			}
			hs := `mintlify_page_visitors{project="docs",window="1d",path="` + r.Path + `",traffic="human"}`
			if i := slices.IndexFunc(series[hs], func(p point) bool { return p.ts == ts }); i < 0 || series[hs][i].value != float64(r.Human) {
				t.Errorf("%s: got %v, want %d at %d", hs, series[hs], r.Human, ts)
			}
		}
		pe := `mintlify_visitors_paths_exported{project="docs",window="1d"}`
		if i := slices.IndexFunc(series[pe], func(p point) bool { return p.ts == ts }); i < 0 || series[pe][i].value != 3 {
			t.Errorf("%s on %s: %v, want 3", pe, d, series[pe])
		}
	}
	if !strings.Contains(h.out.String(), "estimate from the first day: about 6 requests in all") {
		t.Errorf("no estimate after the first day:\n%s", h.out.String())
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	h := newHarness(t)
	out := h.path("history.om")
	cfg := h.config(day(-52), day(7), out)
	cfg.DryRun = true
	res, err := h.run(context.Background(), cfg)
	if err != nil || backfill.ExitCode(res, err) != backfill.ExitOK {
		t.Fatalf("dry run: %v", err)
	}
	if n := h.srv.CountRequests(""); n != 0 {
		t.Errorf("the dry run sent %d requests", n)
	}
	for _, p := range []string{out, backfill.JournalPath(out)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dry run created %s", p)
		}
	}
	for _, want := range []string{"(60 days)", "cost: 60 requests", "time: about 1h30m at 40 requests per hour", "dry run: nothing sent"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, h.out.String())
		}
	}
}

// TestResumeAfterInterruption cancels a run in the middle (as Ctrl-C
// does), resumes it, and compares with an uninterrupted run: the same
// bytes, and no day asked twice.
func TestResumeAfterInterruption(t *testing.T) {
	ref := newHarness(t)
	refOut := ref.path("history.om")
	ref.mustRun(ref.config(day(-20), day(7), refOut))
	want, _ := readOutput(t, refOut)

	h := newHarness(t)
	out := h.path("history.om")
	ctx, cancel := context.WithCancel(context.Background())
	h.beforeSend = func(n int) error {
		if n == 12 {
			cancel()
			return context.Canceled
		}
		return nil
	}
	res, err := h.run(ctx, h.config(day(-20), day(7), out))
	if code := backfill.ExitCode(res, err); code != backfill.ExitInterrupted {
		t.Fatalf("interrupted run: exit %d, %v", code, err)
	}
	if res.Fetched != 11 {
		t.Errorf("interrupted run fetched %d days, want 11", res.Fetched)
	}
	_, partial := readOutput(t, out) // valid on its own
	if got := len(partial[`mintlify_visitors_deduplicated{project="docs",window="1d"}`]); got != 11 {
		t.Errorf("the interrupted run's file has %d days, want 11", got)
	}
	if !strings.Contains(h.out.String(), "--resume") {
		t.Errorf("the interrupted run does not say how to resume:\n%s", h.out.String())
	}

	// Started again without --resume: refused.
	h.beforeSend = nil
	if _, err := h.run(context.Background(), h.config(day(-20), day(7), out)); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("a second run without --resume: %v, want a refusal naming --resume", err)
	}
	cfg := h.config(day(-20), day(7), out)
	cfg.Resume = true
	res = h.mustRun(cfg)
	if res.Resumed != 11 || res.Fetched != 17 {
		t.Errorf("resumed %d, fetched %d; want 11 and 17", res.Resumed, res.Fetched)
	}
	got, _ := readOutput(t, out)
	if !bytes.Equal(got, want) {
		t.Errorf("the resumed file differs from an uninterrupted run's:\n%s\nwant:\n%s", got, want)
	}
	for d, n := range h.requestedDays() {
		if n != 1 {
			t.Errorf("%s asked %d times", d, n)
		}
	}
	if n := len(h.requestedDays()); n != 28 {
		t.Errorf("%d days asked, want 28", n)
	}
}

// TestFailedDaysAndTornJournal makes one day fail on every attempt: the
// run ends incomplete with a valid file; a crash that tore the journal's
// last line is repaired; resuming fetches only the failed day.
func TestFailedDaysAndTornJournal(t *testing.T) {
	ref := newHarness(t)
	ref.sources = []string{"visitors"}
	refOut := ref.path("history.om")
	cfg := ref.config(day(0), day(5), refOut)
	cfg.Pages = true
	ref.mustRun(cfg)
	want, _ := readOutput(t, refOut)

	h := newHarness(t)
	out := h.path("history.om")
	// Every request for the second page of 2025-03-03 answers 500: the
	// third day's, on each of its 3 attempts of 2 tries.
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 2, Status: 500, AfterN: 2, Times: 6})
	cfg = h.config(day(0), day(5), out)
	cfg.Pages = true
	res, err := h.run(context.Background(), cfg)
	if code := backfill.ExitCode(res, err); code != backfill.ExitIncomplete {
		t.Fatalf("exit %d, %v, want %d\n%s", code, err, backfill.ExitIncomplete, h.out.String())
	}
	if len(res.Failed) != 1 || res.Failed[0].Day != day(2) {
		t.Fatalf("failed %v, want 2025-03-03 only", res.Failed)
	}
	if !regexp.MustCompile(`\n  2025-03-03 visitors docs: .*HTTP 500`).MatchString(h.out.String()) {
		t.Errorf("the report does not list the failed day:\n%s", h.out.String())
	}
	_, partial := readOutput(t, out)
	if got := len(partial[`mintlify_visitors_deduplicated{project="docs",window="1d"}`]); got != 5 {
		t.Errorf("the incomplete file has %d days, want 5", got)
	}
	before := h.requestedDays()

	// A crash while writing the next entry leaves a torn last line.
	jf, err := os.OpenFile(backfill.JournalPath(out), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	jf.WriteString(`{"day":"2025-03-03","source":"visitors","proj`)
	jf.Close()

	cfg = h.config(day(0), day(5), out)
	cfg.Pages = true
	cfg.Resume = true
	res = h.mustRun(cfg)
	if res.Resumed != 5 || res.Fetched != 1 {
		t.Errorf("resumed %d, fetched %d; want 5 and 1", res.Resumed, res.Fetched)
	}
	got, _ := readOutput(t, out)
	if !bytes.Equal(got, want) {
		t.Errorf("the resumed file differs from an uninterrupted run's:\n%s\nwant:\n%s", got, want)
	}
	for d, n := range h.requestedDays() {
		if before[d] > 0 && !strings.HasPrefix(d, "2025-03-03") && n != before[d] {
			t.Errorf("%s, finished before, was asked again", d)
		}
	}
}

func TestRevokedKeyStopsAndResumes(t *testing.T) {
	ref := newHarness(t)
	refOut := ref.path("history.om")
	ref.mustRun(ref.config(day(0), day(7), refOut))
	want, _ := readOutput(t, refOut)

	h := newHarness(t)
	out := h.path("history.om")
	h.beforeSend = func(n int) error {
		if n == 4 {
			h.srv.RevokeKey(mintlifytest.DefaultKey)
		}
		return nil
	}
	res, err := h.run(context.Background(), h.config(day(0), day(7), out))
	if code := backfill.ExitCode(res, err); code != backfill.ExitError || err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("exit %d, %v: want %d and an error with the 401 and --resume", code, err, backfill.ExitError)
	}
	if n := h.srv.CountRequests(mintlifytest.EndpointVisitors); n != 4 {
		t.Errorf("%d requests: the run went on after the key was refused", n)
	}
	h.beforeSend = nil
	h.srv.SetKeys(mintlifytest.DefaultKey)
	cfg := h.config(day(0), day(7), out)
	cfg.Resume = true
	h.mustRun(cfg)
	got, _ := readOutput(t, out)
	if !bytes.Equal(got, want) {
		t.Errorf("the resumed file differs from an uninterrupted run's")
	}
}

// Test429Pauses answers one 429 with a Retry-After: the run pauses every
// request until then and retries the day.
func Test429Pauses(t *testing.T) {
	h := newHarness(t)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, AfterN: 2, Times: 1, Status: 429, RetryAfter: "600"})
	out := h.path("history.om")
	h.mustRun(h.config(day(0), day(4), out))
	_, series := readOutput(t, out)
	h.expectSite(series, dates(day(0), 5))
	// Requests 1-3 at t0 (the third answered 429), the fourth 600 s later.
	if len(h.sent) != 6 {
		t.Fatalf("%d requests, want 6", len(h.sent))
	}
	if d := h.sent[3].Sub(h.sent[2]); d < 600*time.Second {
		t.Errorf("the request after the 429 came %s after it, want at least the Retry-After, 10m", d)
	}
	if !strings.Contains(h.out.String(), "answered 429") {
		t.Errorf("the pause is not reported:\n%s", h.out.String())
	}
}

// Test429RetryAfterZeroBacksOff answers three 429s with "Retry-After: 0":
// the run waits as for a 429 without Retry-After rather than asking again
// at once, spending a request of the hour on each answer.
func Test429RetryAfterZeroBacksOff(t *testing.T) {
	h := newHarness(t)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, AfterN: 2, Times: 3, Status: 429, RetryAfter: "0"})
	out := h.path("history.om")
	h.mustRun(h.config(day(0), day(4), out))
	_, series := readOutput(t, out)
	h.expectSite(series, dates(day(0), 5))
	if len(h.sent) != 8 {
		t.Fatalf("%d requests, want 8", len(h.sent))
	}
	for i := 3; i <= 5; i++ { // after the three 429s (requests 3, 4 and 5)
		if d := h.sent[i].Sub(h.sent[i-1]); d < time.Minute {
			t.Errorf("request %d came %s after a 429 with Retry-After: 0, want at least a minute", i+1, d)
		}
	}
}

// TestPacingNeverExceedsBudget backfills 100 days at 40 requests an hour
// against a fake that enforces 40 an hour on the same clock.
func TestPacingNeverExceedsBudget(t *testing.T) {
	h := newHarness(t, mintlifytest.WithRateLimit(40), mintlifytest.WithProject("docs", fillDataset(120)))
	out := h.path("history.om")
	res := h.mustRun(h.config(day(-100), day(-1), out))
	if res.Fetched != 100 {
		t.Errorf("fetched %d, want 100", res.Fetched)
	}
	for _, r := range h.srv.Requests() {
		if r.Status != 200 {
			t.Errorf("the fake answered %d: the budget let too much through", r.Status)
		}
	}
	if m := maxInSlidingHour(h.sent); m > 40 {
		t.Errorf("%d requests in one sliding hour, budget 40", m)
	}
	if took := h.clock.Now().Sub(t0); took < 2*time.Hour {
		t.Errorf("100 requests at 40 an hour took %s of the clock, want over 2h", took)
	}
}

func TestErrorsForPeople(t *testing.T) {
	h := newHarness(t)
	existing := h.path("exists.om")
	if err := os.WriteFile(existing, []byte("# EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	leftJournal := h.path("left.om")
	if err := os.WriteFile(backfill.JournalPath(leftJournal), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	today := client.DateOf(t0)
	for _, tc := range []struct {
		name     string
		from, to client.Date
		output   string
		edit     func(*backfill.Config)
		want     string
	}{
		{"today is not complete", day(0), today, "a.om", nil, "--to=2025-03-10 is not a completed day"},
		{"future", today.AddDays(3), today.AddDays(5), "a.om", nil, "not a completed day"},
		{"from after to", day(5), day(2), "a.om", nil, "--from=2025-03-06 is after --to=2025-03-03"},
		// Without --to, a --from of today blames --from, not a --to the user never gave.
		{"from today without to", today, client.Date{}, "a.om", nil, "--from=2025-03-10 is not a completed day"},
		{"too long", day(-400), day(0), "a.om", nil, "is 401 days; one run backfills at most 366"},
		{"no from", client.Date{}, day(0), "a.om", nil, "--from is required"},
		{"no output", day(0), day(1), "", nil, "--output is required"},
		{"output exists", day(0), day(1), existing, nil, "exists.om exists: add --force"},
		{"journal left", day(0), day(1), leftJournal, nil, "add --resume"},
		{"resume and force", day(0), day(1), "a.om", func(c *backfill.Config) { c.Resume, c.Force = true, true }, "--resume and --force exclude each other"},
		{"resume a finished file", day(0), day(1), existing, func(c *backfill.Config) { c.Resume = true }, "that backfill finished"},
		{"no directory", day(0), day(1), h.path("missing/a.om"), nil, "does not exist"},
		{"no site-wide source", day(0), day(1), "a.om", func(c *backfill.Config) { c.Sources = []engine.Source{noSite{}} }, "add --backfill.pages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.output
			if out != "" && !strings.HasPrefix(out, "/") {
				out = h.path(out)
			}
			cfg := h.config(tc.from, tc.to, out)
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			res, err := h.run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if code := backfill.ExitCode(res, err); code != backfill.ExitError {
				t.Errorf("exit %d, want %d", code, backfill.ExitError)
			}
		})
	}
	if n := h.srv.CountRequests(""); n != 0 {
		t.Errorf("refused runs sent %d requests", n)
	}
	if data, _ := os.ReadFile(existing); string(data) != "# EOF\n" {
		t.Errorf("a refused run changed an existing file")
	}
}

func TestResumeWithOtherArgumentsRefused(t *testing.T) {
	h := newHarness(t)
	out := h.path("history.om")
	ctx, cancel := context.WithCancel(context.Background())
	h.beforeSend = func(n int) error {
		if n == 3 {
			cancel()
		}
		return nil
	}
	h.run(ctx, h.config(day(0), day(7), out))
	h.beforeSend = nil
	cfg := h.config(day(0), day(6), out)
	cfg.Resume = true
	if _, err := h.run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "made with other arguments") || !strings.Contains(err.Error(), "--to=2025-03-08") {
		t.Errorf("resume with another --to: %v", err)
	}
	cfg = h.config(day(0), day(7), out)
	cfg.Force = true
	res := h.mustRun(cfg)
	if res.Resumed != 0 || res.Fetched != 8 {
		t.Errorf("--force: resumed %d, fetched %d; want 0 and 8", res.Resumed, res.Fetched)
	}
}

func TestProgress(t *testing.T) {
	h := newHarness(t)
	cfg := h.config(day(0), day(2), h.path("a.om"))
	h.mustRun(cfg)
	if n := strings.Count(h.out.String(), " done: "); n != 3 {
		t.Errorf("%d progress lines, want one per day (3):\n%s", n, h.out.String())
	}
	if strings.Contains(h.out.String(), "\r") {
		t.Errorf("terminal control characters without a terminal")
	}
	cfg = h.config(day(0), day(2), h.path("b.om"))
	cfg.Terminal = true
	h.mustRun(cfg)
	if !strings.Contains(h.out.String(), "\r\x1b[K[########################] 3/3 fetches, 3 requests") {
		t.Errorf("no full bar on a terminal:\n%q", h.out.String())
	}
}

// promtoolForTSDB returns the Debian promtool for a test that runs
// `promtool tsdb create-blocks-from`: such a test is skipped under -short,
// and fails under CI when promtool is missing.
func promtoolForTSDB(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs promtool tsdb create-blocks-from (seconds): skipped under -short")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is missing (Debian package prometheus)")
		}
		t.Skip("promtool is missing (Debian package prometheus)")
	}
	return promtool
}

// TestPromtoolAcceptsOutput loads a pages backfill with the real promtool.
func TestPromtoolAcceptsOutput(t *testing.T) {
	promtool := promtoolForTSDB(t)
	h := newHarness(t)
	out := h.path("history.om")
	cfg := h.config(day(0), day(3), out)
	cfg.Pages = true
	h.mustRun(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, promtool, "tsdb", "create-blocks-from", "openmetrics", out, h.path("blocks"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool: %v\n%s", err, b)
	}
	blocks, _ := os.ReadDir(h.path("blocks"))
	if len(blocks) == 0 {
		t.Error("promtool wrote no block")
	}
}

// noSite is a source without site-wide figures, like feedback.
type noSite struct{}

func (noSite) Name() string                  { return "nosite" }
func (noSite) Families() []engine.Family     { return nil }
func (noSite) Supports(w engine.Window) bool { return !w.Site }
func (noSite) Fetch(context.Context, engine.Unit, client.DateRange, int) (*engine.Result, error) {
	return nil, errors.New("not called")
}

// TestOutputMustBeARegularFile: --output (and its journal) that is a
// device, a FIFO, a directory, or the API key file is refused before any
// request is sent, even with --force.
func TestOutputMustBeARegularFile(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte(mintlifytest.DefaultKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(keyFile, link); err != nil {
		t.Fatal(err)
	}
	// A link to /dev/null: Stat follows it to the device, and a
	// regression would replace the link, never the device itself.
	devnull := filepath.Join(dir, "devnull")
	if err := os.Symlink(os.DevNull, devnull); err != nil {
		t.Fatal(err)
	}
	journalDir := filepath.Join(dir, "out.om")
	if err := os.Mkdir(backfill.JournalPath(journalDir), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ output, want string }{
		{devnull, "not a regular file"},
		{fifo, "not a regular file"},
		{dir, "is a directory"},
		{keyFile, "--mintlify.api-key-file"},
		{link, "--mintlify.api-key-file"},
		{journalDir, "is a directory"},
	} {
		cfg := h.config(day(0), day(3), tc.output)
		cfg.Force = true
		cfg.Protected = map[string]string{"--mintlify.api-key-file": keyFile}
		res, err := h.run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || backfill.ExitCode(res, err) != backfill.ExitError {
			t.Errorf("--output=%s --force: %v, want an error with %q", tc.output, err, tc.want)
		}
		if n := h.srv.CountRequests(""); n != 0 {
			t.Errorf("--output=%s: %d requests sent before the output was refused", tc.output, n)
		}
	}
	if b, _ := os.ReadFile(keyFile); string(b) != mintlifytest.DefaultKey+"\n" {
		t.Error("the key file was changed")
	}
}

// TestRefusedCallerStops: a 403 (allowlist or scope) and a 404 (unknown
// project) stop the run at once with the advice, like a 401; no other day
// is tried.
func TestRefusedCallerStops(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{403, "allowlist"},
		{404, "--mintlify.project-id"},
		{401, "expired or been revoked"},
	} {
		h := newHarness(t)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: tc.status})
		res, err := h.run(context.Background(), h.config(day(0), day(7), h.path("history.om")))
		if code := backfill.ExitCode(res, err); code != backfill.ExitError || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--resume") {
			t.Errorf("HTTP %d: exit %d, %v: want %d and an error with %q", tc.status, code, err, backfill.ExitError, tc.want)
		}
		if n := h.srv.CountRequests(mintlifytest.EndpointVisitors); n != 1 {
			t.Errorf("HTTP %d: %d requests, want 1: the run goes on after the API refused it", tc.status, n)
		}
	}
}

// TestDryRunPrintsThePlanBesideAJournal: an interrupted backfill's journal
// does not keep a dry run from printing its plan; it says what a real run
// would need.
func TestDryRunPrintsThePlanBesideAJournal(t *testing.T) {
	h := newHarness(t)
	out := h.path("history.om")
	if err := os.WriteFile(backfill.JournalPath(out), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := h.config(day(0), day(2), out)
	cfg.DryRun = true
	res := h.mustRun(cfg)
	if res.Requests != 0 {
		t.Errorf("a dry run sent %d requests", res.Requests)
	}
	for _, want := range []string{"cost: 3 requests", "a real run would stop here: an interrupted backfill left"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("the dry run's output lacks %q:\n%s", want, h.out.String())
		}
	}
}
