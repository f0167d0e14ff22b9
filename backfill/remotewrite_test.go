package backfill_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// receiver is a remote-write receiver on 127.0.0.1 that decodes every
// request and answers what answer says (204 when nil).
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	reqs    []*prompb.WriteRequest // the requests answered 2xx
	headers []http.Header          // of every request
	answer  func(n int) (int, string)
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) url() string { return r.srv.URL + "/api/v1/write" }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.headers = append(r.headers, req.Header.Clone())
	n := len(r.headers)
	answer := r.answer
	r.mu.Unlock()
	if req.URL.Path != "/api/v1/write" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	if answer != nil {
		if code, msg := answer(n); code != 0 {
			http.Error(w, msg, code)
			return
		}
	}
	data, err := snappy.Decode(nil, body)
	if err != nil {
		r.t.Errorf("request %d: not snappy: %v", n, err)
		http.Error(w, err.Error(), 400)
		return
	}
	wr := &prompb.WriteRequest{}
	if err := wr.Unmarshal(data); err != nil {
		r.t.Errorf("request %d: not a WriteRequest: %v", n, err)
		http.Error(w, err.Error(), 400)
		return
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, wr)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// samples returns every accepted sample by series (name{labels sorted}),
// and checks the protocol's order: labels sorted, samples in time order,
// requests in time order (a request's samples not older than the last
// request's).
func (r *receiver) samples() map[string][]point {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]point{}
	var newest int64
	for i, wr := range r.reqs {
		var oldest int64 = 1 << 62
		for _, ts := range wr.Timeseries {
			var name string
			var parts []string
			for j, l := range ts.Labels {
				if j > 0 && ts.Labels[j-1].Name >= l.Name {
					r.t.Errorf("request %d: labels not sorted: %v", i+1, ts.Labels)
				}
				if l.Name == "__name__" {
					name = l.Value
				} else {
					parts = append(parts, fmt.Sprintf("%s=%q", l.Name, l.Value))
				}
			}
			s := name + "{" + strings.Join(parts, ",") + "}"
			for j, smp := range ts.Samples {
				if j > 0 && ts.Samples[j-1].Timestamp >= smp.Timestamp {
					r.t.Errorf("request %d: %s: samples not in time order", i+1, s)
				}
				oldest = min(oldest, smp.Timestamp)
				out[s] = append(out[s], point{smp.Value, smp.Timestamp / 1000})
			}
		}
		if oldest < newest {
			r.t.Errorf("request %d goes back in time", i+1)
		}
		for _, ts := range wr.Timeseries {
			for _, smp := range ts.Samples {
				newest = max(newest, smp.Timestamp)
			}
		}
	}
	return out
}

// requests is the number of requests received, answered 2xx or not.
func (r *receiver) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.headers)
}

// rwConfig is h.config sending to rw with the journal in the harness's
// directory and job="mintlify".
func (h *harness) rwConfig(from, to client.Date, rw *backfill.RemoteWriter) backfill.Config {
	cfg := h.config(from, to, "")
	cfg.RemoteWrite, cfg.Journal = rw, h.path("rw.journal")
	cfg.Labels, _ = backfill.MergeLabels(nil)
	return cfg
}

// newWriter is a writer to r that retries twice without waiting (the
// package's tests' remoteBackoff).
func newWriter(t *testing.T, url, configFile string) *backfill.RemoteWriter {
	t.Helper()
	rw, err := backfill.NewRemoteWriter(url, configFile, "test/1")
	if err != nil {
		t.Fatal(err)
	}
	return rw
}

// expectSiteJob is expectSite for series with job="mintlify", as the
// receiver renders them (labels sorted).
func (h *harness) expectSiteJob(series map[string][]point, days []client.Date) {
	h.t.Helper()
	want := map[string][]point{}
	for _, d := range days {
		totals, _ := h.srv.Visitors("docs", d.Time(), d.AddDays(1).Time())
		ts := d.AddDays(1).Time().Unix() - 1
		add := func(s string, v int64) { want[s] = append(want[s], point{float64(v), ts}) }
		add(`mintlify_visitors{job="mintlify",project="docs",traffic="human",window="1d"}`, totals.Human)
		add(`mintlify_visitors{job="mintlify",project="docs",traffic="ai",window="1d"}`, totals.AI)
		add(`mintlify_visitors_deduplicated{job="mintlify",project="docs",window="1d"}`, totals.Total)
	}
	if len(series) != len(want) {
		h.t.Errorf("%d series, want %d: %v", len(series), len(want), series)
	}
	for s, pts := range want {
		if !slices.Equal(series[s], pts) {
			h.t.Errorf("%s:\n got %v\nwant %v", s, series[s], pts)
		}
	}
}

// TestRemoteWriteSendsEachDayInTimeOrder: each day is sent once fetched,
// oldest first, snappy-compressed protobuf with the 1.0 headers, the
// config file's basic auth and tenant header, the target labels; the
// journal is removed at the end.
func TestRemoteWriteSendsEachDayInTimeOrder(t *testing.T) {
	h := newHarness(t)
	recv := newReceiver(t)
	pw := h.path("password")
	os.WriteFile(pw, []byte("s3cret\n"), 0o600)
	conf := h.path("rw.yml")
	os.WriteFile(conf, []byte("basic_auth:\n  username: backfill\n  password_file: password\nheaders:\n  X-Scope-OrgID: docs-team\nremote_timeout: 10s\n"), 0o600)
	res := h.mustRun(h.rwConfig(day(0), day(4), newWriter(t, recv.url(), conf)))
	h.expectSiteJob(recv.samples(), dates(day(0), 5))
	if res.WriteRequests != 5 || res.Samples != 15 || recv.requests() != 5 {
		t.Errorf("%d requests of %d samples (receiver: %d requests), want one a day: 5 and 15", res.WriteRequests, res.Samples, recv.requests())
	}
	for i, hdr := range recv.headers {
		user, pass, ok := (&http.Request{Header: hdr}).BasicAuth()
		want := map[string]string{"Content-Encoding": "snappy", "Content-Type": "application/x-protobuf",
			"X-Prometheus-Remote-Write-Version": "0.1.0", "X-Scope-Orgid": "docs-team", "User-Agent": "test/1"}
		for k, v := range want {
			if got := hdr.Get(k); got != v {
				t.Errorf("request %d: %s: %q, want %q", i+1, k, got, v)
			}
		}
		if !ok || user != "backfill" || pass != "s3cret" {
			t.Errorf("request %d: basic auth %q %q %v", i+1, user, pass, ok)
		}
	}
	if _, err := os.Stat(h.path("rw.journal")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal of a complete run is still there: %v", err)
	}
	out := h.out.String()
	for _, want := range []string{
		"into " + recv.url() + " by remote write", `target labels: job="mintlify"`,
		"2025-03-01 sent: 3 samples to " + recv.url() + " (3 samples in all)", "2025-03-05 sent: 3 samples",
		"sent 15 samples to " + recv.url() + " in 5 requests", "done: 5 fetches, 5 requests sent by this run; every day is in",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Error("the password was printed")
	}
}

// TestRemoteWriteResumes interrupts a run once while fetching and once
// while sending: resumed, the receiver gets every sample exactly once, the
// fetched but unsent days first, and no day is asked twice.
func TestRemoteWriteResumes(t *testing.T) {
	h := newHarness(t)
	recv := newReceiver(t)
	rw := newWriter(t, recv.url(), "")
	ctx, cancel := context.WithCancel(context.Background())
	h.beforeSend = func(n int) error {
		if n == 4 {
			cancel()
			return context.Canceled
		}
		return nil
	}
	res, err := h.run(ctx, h.rwConfig(day(0), day(7), rw))
	if code := backfill.ExitCode(res, err); code != backfill.ExitInterrupted || res.WriteRequests != 3 {
		t.Fatalf("interrupted while fetching: exit %d, %v, %d requests sent; want %d and 3", code, err, res.WriteRequests, backfill.ExitInterrupted)
	}
	if !strings.Contains(h.out.String(), "the journal "+h.path("rw.journal")+" holds them") {
		t.Errorf("the report does not name the journal:\n%s", h.out.String())
	}
	h.beforeSend = nil

	// Interrupted again while the receiver handles the 6th day: it was
	// fetched, the receiver's answer was lost.
	ctx, cancel = context.WithCancel(context.Background())
	recv.answer = func(n int) (int, string) {
		if n == 6 {
			cancel()
			return 503, "going away"
		}
		return 0, ""
	}
	cfg := h.rwConfig(day(0), day(7), rw)
	cfg.Resume = true
	res, err = h.run(ctx, cfg)
	if code := backfill.ExitCode(res, err); code != backfill.ExitInterrupted || res.Resumed != 3 || res.Fetched != 3 || res.WriteRequests != 2 {
		t.Fatalf("interrupted while sending: exit %d, %v, resumed %d, fetched %d, sent %d; want %d, 3, 3, 2\n%s",
			code, err, res.Resumed, res.Fetched, res.WriteRequests, backfill.ExitInterrupted, h.out.String())
	}

	recv.answer = nil
	cfg = h.rwConfig(day(0), day(7), rw)
	cfg.Resume = true
	res = h.mustRun(cfg)
	if res.Resumed != 6 || res.Fetched != 2 {
		t.Errorf("resumed %d, fetched %d; want 6 and 2", res.Resumed, res.Fetched)
	}
	if !strings.Contains(h.out.String(), "2025-03-06 sent: 3 samples") || strings.Index(h.out.String(), "2025-03-06 sent") > strings.Index(h.out.String(), "2025-03-07 done") {
		t.Errorf("the fetched but unsent day is not sent first:\n%s", h.out.String())
	}
	h.expectSiteJob(recv.samples(), dates(day(0), 8))
	for d, n := range h.requestedDays() {
		if n != 1 {
			t.Errorf("%s asked %d times", d, n)
		}
	}
}

// TestRemoteWrite400Stops: a receiver that refuses the samples (400) is
// asked once, and the run stops with its answer and what to do; the
// journal keeps the day, sent by --resume.
func TestRemoteWrite400Stops(t *testing.T) {
	h := newHarness(t)
	recv := newReceiver(t)
	recv.answer = func(int) (int, string) { return 400, "out of bounds\nsample too old" }
	rw := newWriter(t, recv.url(), "")
	res, err := h.run(context.Background(), h.rwConfig(day(0), day(4), rw))
	if code := backfill.ExitCode(res, err); code != backfill.ExitError || err == nil {
		t.Fatalf("exit %d, %v; want %d", code, err, backfill.ExitError)
	}
	for _, want := range []string{"remote write to " + recv.url() + " refused the samples", "400 Bad Request", "out of bounds sample too old", "out-of-order window", "--resume"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error on several lines: %q", err)
	}
	if recv.requests() != 1 || res.Fetched != 1 {
		t.Errorf("%d requests after %d fetches: want 1 and 1 (a 4xx is not retried, the run stops)", recv.requests(), res.Fetched)
	}
	recv.answer = nil
	cfg := h.rwConfig(day(0), day(4), rw)
	cfg.Resume = true
	h.mustRun(cfg)
	h.expectSiteJob(recv.samples(), dates(day(0), 5))
}

// TestRemoteWrite503Retried: 503 and 429 are retried (without waiting
// here); a receiver that stays unavailable stops the run after the
// retries.
func TestRemoteWrite503Retried(t *testing.T) {
	h := newHarness(t)
	recv := newReceiver(t)
	recv.answer = func(n int) (int, string) {
		switch n {
		case 2:
			return 503, "restarting"
		case 3:
			return 429, "slow down"
		}
		return 0, ""
	}
	h.mustRun(h.rwConfig(day(0), day(2), newWriter(t, recv.url(), "")))
	h.expectSiteJob(recv.samples(), dates(day(0), 3))
	if recv.requests() != 5 {
		t.Errorf("%d requests, want 5 (3 days, the second sent 3 times)", recv.requests())
	}
	for _, want := range []string{"503 Service Unavailable: restarting; retry 1 of 2", "429 Too Many Requests: slow down; retry 2 of 2"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, h.out.String())
		}
	}

	h2 := newHarness(t)
	recv2 := newReceiver(t)
	recv2.answer = func(int) (int, string) { return 503, "down" }
	res, err := h2.run(context.Background(), h2.rwConfig(day(0), day(2), newWriter(t, recv2.url(), "")))
	if code := backfill.ExitCode(res, err); code != backfill.ExitError || err == nil || !strings.Contains(err.Error(), "failed after 2 retries") || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("exit %d, %v; want %d and an error naming the retries and --resume", code, err, backfill.ExitError)
	}
	if recv2.requests() != 3 {
		t.Errorf("%d requests, want 3 (one and two retries)", recv2.requests())
	}
}

// TestRemoteWriteConfigErrors: the URL and the config file are checked
// before anything is sent, with errors that name the flag and hold no
// secret.
func TestRemoteWriteConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := dir + "/" + name
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	for _, tc := range []struct{ url, config, want string }{
		{"prometheus:9090/api/v1/write", "", "--remote-write.url=prometheus:9090/api/v1/write: want an http or https URL"},
		{"http://user:hunter2@127.0.0.1:9/api/v1/write", "", "credentials do not belong on the command line"},
		{"http://127.0.0.1:9/api/v1/write", dir + "/missing.yml", "--remote-write.config=" + dir + "/missing.yml: no such file"},
		{"http://127.0.0.1:9/api/v1/write", write("url.yml", "url: http://x/\n"), "field url not found in type backfill.remoteWriteFile (the URL is --remote-write.url)"},
		{"http://127.0.0.1:9/api/v1/write", write("queue.yml", "queue_config:\n  capacity: 1\n"), "field queue_config not found"},
		{"http://127.0.0.1:9/api/v1/write", write("hdr.yml", "headers:\n  Authorization: Bearer hunter2\n"), "the header Authorization is set by the protocol"},
		{"http://127.0.0.1:9/api/v1/write", write("two.yml", "basic_auth:\n  username: u\n  password: hunter2\nbearer_token: hunter2\n"), "at most one of basic_auth"},
		{"http://127.0.0.1:9/api/v1/write", write("timeout.yml", "remote_timeout: 0s\n"), "remote_timeout must be above zero"},
		{"http://127.0.0.1:9/api/v1/write", write("type.yml", "basic_auth: hunter2\n"), "line 1: cannot unmarshal !!str a value into"},
		{"http://127.0.0.1:9/api/v1/write", write("pwfile.yml", "basic_auth:\n  username: u\n  password_file: missing-password\n"), "basic_auth.password_file " + dir + "/missing-password: no such file or directory"},
		{"http://127.0.0.1:9/api/v1/write", write("token.yml", "bearer_token_file: /nonexistent/token\n"), "authorization.credentials_file /nonexistent/token: no such file"},
	} {
		_, err := backfill.NewRemoteWriter(tc.url, tc.config, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.url, tc.config, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s %s: the error holds the secret: %v", tc.url, tc.config, err)
		}
	}
}

// TestTargetLabels: the file output carries the target labels; a label
// that clashes with a series' own is refused; --backfill.label parses
// NAME=VALUE and an empty value removes a default.
func TestTargetLabels(t *testing.T) {
	h := newHarness(t)
	out := h.path("history.om")
	cfg := h.config(day(0), day(1), out)
	cfg.Labels, _ = backfill.MergeLabels([]string{"namespace=monitoring"})
	h.mustRun(cfg)
	_, series := readOutput(t, out)
	if _, ok := series[`mintlify_visitors_deduplicated{job="mintlify",namespace="monitoring",project="docs",window="1d"}`]; !ok || len(series) != 3 {
		t.Errorf("series without the target labels: %v", series)
	}

	cfg = h.config(day(0), day(1), h.path("b.om"))
	cfg.Labels = []backfill.Label{{"traffic", "x"}}
	if _, err := h.run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--backfill.label=traffic=x: traffic is a label of mintlify_") {
		t.Errorf("a clashing label: %v", err)
	}
	for in, want := range map[string]string{"job": "want NAME=VALUE", "1x=a": "is not a label name", "__name__=x": "reserved"} {
		if _, err := backfill.MergeLabels([]string{"instance=x", in}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("MergeLabels(%q): %v, want %q", in, err, want)
		}
	}
	if got, err := backfill.MergeLabels([]string{"job=", "instance=exporter:9888"}); err != nil || !slices.Equal(got, []backfill.Label{{"instance", "exporter:9888"}}) {
		t.Errorf("MergeLabels: %v, %v", got, err)
	}
}

// TestRemoteWriteResumeNeedsAJournal: --resume without the journal is an
// error (a finished remote-write backfill leaves none), before any request.
func TestRemoteWriteResumeNeedsAJournal(t *testing.T) {
	h := newHarness(t)
	recv := newReceiver(t)
	cfg := h.rwConfig(day(0), day(2), newWriter(t, recv.url(), ""))
	cfg.Resume = true
	_, err := h.run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "--resume: there is no journal "+h.path("rw.journal")) {
		t.Errorf("--resume without a journal: %v", err)
	}
	if n := h.srv.CountRequests(""); n != 0 || recv.requests() != 0 {
		t.Errorf("%d API requests and %d write requests, want none", n, recv.requests())
	}
}

// TestRemoteWriteDryRun prints the plan of a remote-write backfill and
// sends nothing, to the API or the receiver.
func TestRemoteWriteDryRun(t *testing.T) {
	h := newHarness(t)
	recv := newReceiver(t)
	cfg := h.rwConfig(day(0), day(2), newWriter(t, recv.url(), ""))
	cfg.DryRun = true
	h.mustRun(cfg)
	for _, want := range []string{"into " + recv.url() + " by remote write, each day once fetched (journal " + h.path("rw.journal") + ")", "cost: 3 requests", "dry run: nothing sent"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, h.out.String())
		}
	}
	if n := h.srv.CountRequests(""); n != 0 || recv.requests() != 0 {
		t.Errorf("%d API requests and %d write requests, want none", n, recv.requests())
	}
	if _, err := os.Stat(h.path("rw.journal")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run made a journal: %v", err)
	}
}
