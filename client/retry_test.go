package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// jobHarness is a harness with one project holding 30 rows and one job.
func jobHarness(t *testing.T, edit func(*client.Config), opts ...mintlifytest.Option) *harness {
	t.Helper()
	ds, _ := generated(30)
	h := newHarness(t, edit, append([]mintlifytest.Option{mintlifytest.WithProject(testProject, ds)}, opts...)...)
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "job-1", Ref: "main"})
	return h
}

// op is one client operation against the harness's project.
type op struct {
	name     string
	endpoint string
	run      func(h *harness, ctx context.Context) error
}

var (
	opVisitors = op{"visitors", mintlifytest.EndpointVisitors, func(h *harness, ctx context.Context) error {
		_, err := h.c.PathsPage(ctx, client.EndpointVisitors, testProject, client.PathsQuery{Limit: 10})
		return err
	}}
	opGetJob = op{"get_job", mintlifytest.EndpointGetJob, func(h *harness, ctx context.Context) error {
		_, err := h.c.GetJob(ctx, testProject, "job-1")
		return err
	}}
	opListJobs = op{"list_jobs", mintlifytest.EndpointListJobs, func(h *harness, ctx context.Context) error {
		_, err := h.c.ListJobsV1(ctx, testProject)
		return err
	}}
	opSendMessage = op{"send_message", mintlifytest.EndpointSendMessage, func(h *harness, ctx context.Context) error {
		_, err := h.c.SendMessage(ctx, testProject, "job-1", "please fix the typo")
		return err
	}}
	getOps = []op{opVisitors, opGetJob, opListJobs}
	allOps = []op{opVisitors, opGetJob, opListJobs, opSendMessage}
)

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestServerErrorsRetried(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504} {
		for _, o := range getOps {
			t.Run(o.name+"/"+http.StatusText(status), func(t *testing.T) {
				h := jobHarness(t, nil)
				h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, Status: status, Times: 2})
				if err := o.run(h, context.Background()); err != nil {
					t.Fatalf("error after retries: %v", err)
				}
				want := []string{strconv.Itoa(status), strconv.Itoa(status), "200"}
				if got := h.codes(); !slices.Equal(got, want) {
					t.Errorf("attempts %v, want %v", got, want)
				}
				if got := h.count(o.endpoint); got != 3 {
					t.Errorf("fake saw %d requests, want 3", got)
				}
				if got := h.recordedSleeps(); !slices.Equal(got, []time.Duration{500 * time.Millisecond, time.Second}) {
					t.Errorf("sleeps %v, want 500ms, 1s", got)
				}
			})
		}
	}
}

func TestServerErrorsGiveUp(t *testing.T) {
	for _, max := range []int{1, 2, 4, 6} {
		h := jobHarness(t, func(c *client.Config) { c.Retry.MaxAttempts = max })
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: 503})
		err := opVisitors.run(h, context.Background())
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 503 || ae.Endpoint != client.EndpointVisitors {
			t.Fatalf("MaxAttempts %d: error %v, want an HTTP 503 APIError", max, err)
		}
		if got := h.codes(); !slices.Equal(got, repeat("503", max)) {
			t.Errorf("MaxAttempts %d: attempts %v", max, got)
		}
		if got := h.count(mintlifytest.EndpointVisitors); got != max {
			t.Errorf("MaxAttempts %d: fake saw %d requests", max, got)
		}
		if max > 1 && !strings.Contains(err.Error(), "gave up after "+strconv.Itoa(max)+" attempts") {
			t.Errorf("error %q does not say how many attempts", err)
		}
	}
}

func TestBackoffSchedule(t *testing.T) {
	h := jobHarness(t, func(c *client.Config) { c.Retry.MaxAttempts = 7 })
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 500})
	if err := opGetJob.run(h, context.Background()); err == nil {
		t.Fatal("no error")
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second}
	if got := h.recordedSleeps(); !slices.Equal(got, want) {
		t.Errorf("sleeps %v, want %v", got, want)
	}

	// Jitter sees the capped delay; a 503's Retry-After lengthens the wait,
	// within DefaultMaxDelay.
	var jittered []time.Duration
	h = jobHarness(t, func(c *client.Config) {
		c.Retry.MaxAttempts = 4
		c.Retry.Jitter = func(d time.Duration) time.Duration { jittered = append(jittered, d); return d / 2 }
	})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 503, RetryAfter: "2", Times: 1})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 503, RetryAfter: "60", Times: 1})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 503, Times: 1})
	if err := opGetJob.run(h, context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}; !slices.Equal(jittered, want) {
		t.Errorf("jitter saw %v, want %v", jittered, want)
	}
	if got, want := h.recordedSleeps(), []time.Duration{2 * time.Second, 10 * time.Second, time.Second}; !slices.Equal(got, want) {
		t.Errorf("sleeps %v, want %v", got, want)
	}
}

func TestDefaultJitter(t *testing.T) {
	h := jobHarness(t, func(c *client.Config) {
		c.Retry.Jitter = nil
		c.Retry.MaxAttempts = 50
	})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 500, Times: 49})
	if err := opGetJob.run(h, context.Background()); err != nil {
		t.Fatal(err)
	}
	sleeps := h.recordedSleeps()
	if len(sleeps) != 49 {
		t.Fatalf("%d sleeps", len(sleeps))
	}
	distinct := map[time.Duration]bool{}
	nominal := client.DefaultBaseDelay
	for _, d := range sleeps {
		if d < nominal/2 || d > nominal {
			t.Errorf("jittered delay %v outside [%v, %v]", d, nominal/2, nominal)
		}
		distinct[d] = true
		nominal = min(2*nominal, client.DefaultMaxDelay)
	}
	if len(distinct) < 10 {
		t.Errorf("only %d distinct delays in 49: no jitter", len(distinct))
	}
}

func TestClientErrorsNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 405, 409, 422, 429, 501, 302} {
		for _, o := range allOps {
			h := jobHarness(t, nil)
			h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, Status: status})
			err := o.run(h, context.Background())
			var ae *client.APIError
			if !errors.As(err, &ae) || ae.StatusCode != status {
				t.Errorf("%s %d: error %v", o.name, status, err)
				continue
			}
			if got := h.codes(); !slices.Equal(got, []string{strconv.Itoa(status)}) {
				t.Errorf("%s %d: attempts %v, want one", o.name, status, got)
			}
			if len(h.recordedSleeps()) != 0 {
				t.Errorf("%s %d: slept", o.name, status)
			}
		}
	}
}

func TestPostNotRetriedAfterServerError(t *testing.T) {
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointSendMessage, Status: 503, Times: 1})
	err := opSendMessage.run(h, context.Background())
	if statusOf(err) != 503 {
		t.Fatalf("error %v, want HTTP 503", err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"503"}) {
		t.Errorf("attempts %v, want one", got)
	}
}

func statusOf(err error) int {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

func TestAPIErrorKinds(t *testing.T) {
	t.Run("400 with details", func(t *testing.T) {
		h := jobHarness(t, nil)
		bad := client.DateRange{From: client.DateOf(testEnd), To: client.DateOf(testEnd).AddDays(-3)}
		_, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Range: bad})
		var ae *client.APIError
		if !errors.As(err, &ae) {
			t.Fatalf("error %v, want APIError", err)
		}
		if ae.StatusCode != 400 || ae.Message != "Invalid query parameters" || !slices.Equal(ae.Details, []string{"dateFrom must not be after dateTo"}) {
			t.Errorf("APIError %+v", ae)
		}
		if want := "visitors: HTTP 400: Invalid query parameters (dateFrom must not be after dateTo)"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err, want)
		}
		if IsAny(err) {
			t.Error("a 400 classified as not found, unauthorized or rate limited")
		}
	})
	t.Run("400 with several details", func(t *testing.T) {
		h := jobHarness(t, nil)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: 400, Mutate: func(b map[string]any) {
			b["details"] = []any{map[string]any{"message": "limit: too big"}, map[string]any{"message": "offset:\n negative"}, map[string]any{"other": 1}}
		}})
		err := opVisitors.run(h, context.Background())
		if want := "visitors: HTTP 400: Bad Request (limit: too big; offset: negative)"; err == nil || err.Error() != want {
			t.Errorf("Error() = %v, want %q", err, want)
		}
	})
	t.Run("401 unknown key", func(t *testing.T) {
		h := jobHarness(t, nil, mintlifytest.WithKeys("mint_someotherkey000000000000000000"))
		for _, o := range allOps {
			err := o.run(h, context.Background())
			if !client.IsUnauthorized(err) || statusOf(err) != 401 {
				t.Errorf("%s: error %v, want 401", o.name, err)
			}
		}
		if got := h.codes(); !slices.Equal(got, repeat("401", len(allOps))) {
			t.Errorf("attempts %v", got)
		}
	})
	t.Run("401 revoked key", func(t *testing.T) {
		h := jobHarness(t, nil)
		h.srv.RevokeKey(mintlifytest.DefaultKey)
		if err := opGetJob.run(h, context.Background()); !client.IsUnauthorized(err) {
			t.Errorf("error %v, want unauthorized", err)
		}
	})
	t.Run("403", func(t *testing.T) {
		h := jobHarness(t, nil)
		h.srv.AddFault(mintlifytest.Fault{Status: 403, Offset: mintlifytest.AnyOffset})
		for _, o := range allOps {
			err := o.run(h, context.Background())
			if !client.IsRefused(err) || client.IsUnauthorized(err) || client.IsNotFound(err) {
				t.Errorf("%s: error %v, want forbidden", o.name, err)
			}
		}
	})
	t.Run("404", func(t *testing.T) {
		h := jobHarness(t, nil)
		_, err := h.c.GetJob(context.Background(), testProject, "no-such-job")
		if !client.IsNotFound(err) || err.Error() != "get_job: HTTP 404: Job not found" {
			t.Errorf("unknown job: %v", err)
		}
		h.srv.RemoveJob(testProject, "job-1")
		if err := opGetJob.run(h, context.Background()); !client.IsNotFound(err) {
			t.Errorf("removed job: %v", err)
		}
		_, err = h.c.PathsPage(context.Background(), client.EndpointVisitors, "no-such-project", client.PathsQuery{})
		if !client.IsNotFound(err) || client.IsUnauthorized(err) {
			t.Errorf("unknown project: %v", err)
		}
		if got := h.codes(); !slices.Equal(got, []string{"404", "404", "404"}) {
			t.Errorf("attempts %v", got)
		}
	})
	t.Run("non-JSON body", func(t *testing.T) {
		h := jobHarness(t, func(c *client.Config) { c.Retry.MaxAttempts = 1 })
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 502, Body: "<html>\n<body>Bad   gateway</body>\x01</html>" + strings.Repeat("x", 500)})
		err := opGetJob.run(h, context.Background())
		var ae *client.APIError
		if !errors.As(err, &ae) {
			t.Fatalf("error %v", err)
		}
		if !strings.HasPrefix(ae.Message, "<html> <body>Bad gateway</body>\uFFFD</html>xxx") || !strings.HasSuffix(ae.Message, "x…") || len([]rune(ae.Message)) != 201 {
			t.Errorf("message %q: want a cleaned excerpt of 200 runes", ae.Message)
		}
	})
	t.Run("empty body", func(t *testing.T) {
		h := jobHarness(t, nil)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 418, Body: " "})
		if err := opGetJob.run(h, context.Background()); err == nil || err.Error() != "get_job: HTTP 418: I'm a teapot" {
			t.Errorf("error %v", err)
		}
	})
}

// IsAny reports whether err is classified as any of the special kinds.
func IsAny(err error) bool {
	_, _, limited := client.IsRateLimited(err)
	return limited || client.IsNotFound(err) || client.IsUnauthorized(err)
}

func TestRateLimited(t *testing.T) {
	now := time.Date(2025, 6, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, header string
		want         time.Duration
		has          bool
	}{
		{"seconds", "120", 2 * time.Minute, true},
		{"HTTP date", now.Add(45 * time.Minute).Format(http.TimeFormat), 45 * time.Minute, true},
		{"past date", now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"absent", "", 0, false},
		{"garbage", "later", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range allOps {
				h := jobHarness(t, func(c *client.Config) { c.Now = func() time.Time { return now } })
				h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, Status: 429, RetryAfter: tc.header})
				err := o.run(h, context.Background())
				d, has, ok := client.IsRateLimited(err)
				if !ok || d != tc.want || has != tc.has {
					t.Errorf("%s: IsRateLimited = %v, %v, %v; want %v, %v, true (error %v)", o.name, d, has, ok, tc.want, tc.has, err)
				}
				if client.IsUnauthorized(err) || client.IsNotFound(err) {
					t.Errorf("%s: 429 misclassified", o.name)
				}
				if got := h.codes(); !slices.Equal(got, []string{"429"}) {
					t.Errorf("%s: attempts %v, want one", o.name, got)
				}
			}
		})
	}
	t.Run("fake limiter", func(t *testing.T) {
		h := jobHarness(t, nil, mintlifytest.WithRateLimit(2))
		for i := 0; i < 2; i++ {
			if err := opVisitors.run(h, context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		err := opVisitors.run(h, context.Background())
		d, has, ok := client.IsRateLimited(err)
		if !ok || !has || d != time.Hour {
			t.Errorf("IsRateLimited = %v, %v, %v; want 1h (fixed clock), true, true; error %v", d, has, ok, err)
		}
		if !strings.Contains(err.Error(), "visitors: HTTP 429: Rate limit exceeded (retry after 1h0m0s)") {
			t.Errorf("Error() = %q", err)
		}
	})
	if _, _, ok := client.IsRateLimited(errors.New("x")); ok {
		t.Error("a plain error is rate limited")
	}
}

func TestConnectionReset(t *testing.T) {
	for _, o := range getOps {
		h := jobHarness(t, nil)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, Reset: true, Times: 1})
		if err := o.run(h, context.Background()); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		if got := h.codes(); !slices.Equal(got, []string{"error", "200"}) {
			t.Errorf("%s: attempts %v", o.name, got)
		}
	}
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointSendMessage, Reset: true})
	err := opSendMessage.run(h, context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "send_message: ") {
		t.Fatalf("error %v", err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"error"}) {
		t.Errorf("POST after a reset: attempts %v, want one", got)
	}
	h.attemptErrs(t)
}

// attemptErrs checks that transport failures carry their error.
func (h *harness) attemptErrs(t *testing.T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.attempts {
		if (a.StatusCode == 0) && a.Err == nil {
			t.Errorf("attempt %+v: no status and no error", a)
		}
		if a.Duration <= 0 {
			t.Errorf("attempt %+v without a duration", a)
		}
	}
}

func TestTruncatedBody(t *testing.T) {
	for _, o := range getOps {
		h := jobHarness(t, nil)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, Truncate: true, Times: 1})
		if err := o.run(h, context.Background()); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		// A body cut short is not an answer: mintlify_api_requests_total
		// counts it as an error, not as a 200.
		if got := h.codes(); !slices.Equal(got, []string{"error", "200"}) {
			t.Errorf("%s: attempts %v, want [error 200]", o.name, got)
		}
	}
	// Always truncated: a DecodeError after every attempt.
	h := jobHarness(t, func(c *client.Config) { c.Retry.MaxAttempts = 3 })
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Truncate: true})
	err := opGetJob.run(h, context.Background())
	var de *client.DecodeError
	if !errors.As(err, &de) || de.Field != "" || !strings.Contains(de.Reason, "reading body") {
		t.Fatalf("error %v, want a DecodeError about the body", err)
	}
	if got := h.count(mintlifytest.EndpointGetJob); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
	// A POST whose answer was cut reached the server: not repeated.
	h = jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointSendMessage, Truncate: true})
	err = opSendMessage.run(h, context.Background())
	if !errors.As(err, &de) {
		t.Fatalf("error %v, want DecodeError", err)
	}
	if a := h.attempts[0]; a.StatusCode != 200 || a.Err == nil {
		t.Errorf("attempt %+v: want status 200 with the read error", a)
	}
	if got := h.srv.Messages(testProject, "job-1"); len(got) != 1 {
		t.Errorf("messages %q, want exactly one", got)
	}
	if got := h.codes(); !slices.Equal(got, []string{"error"}) {
		t.Errorf("attempts %v, want [error]", got)
	}
}

// attemptTimeout is the per-attempt Timeout TestTimeout gives the client:
// 50 times the slowest of 15 healthy requests measured in the same run (at
// least 200ms, at most 10s), so a healthy answer fits it however loaded the
// machine is, and the faults' minute of delay never does. The test checks the
// client's timeout, not the machine's speed.
func attemptTimeout(t *testing.T) time.Duration {
	t.Helper()
	h := jobHarness(t, nil)
	var slowest time.Duration
	for range 5 {
		for _, o := range getOps {
			t0 := time.Now()
			if err := o.run(h, context.Background()); err != nil {
				t.Fatalf("%s without a fault: %v", o.name, err)
			}
			slowest = max(slowest, time.Since(t0))
		}
	}
	d := min(max(200*time.Millisecond, 50*slowest), 10*time.Second).Round(time.Millisecond)
	t.Logf("slowest healthy request %s: a Timeout of %s", slowest, d)
	return d
}

func TestTimeout(t *testing.T) {
	timeout := attemptTimeout(t)
	short := func(c *client.Config) { c.Timeout = timeout }
	// Each case waits out real timeouts on a fake of its own: they wait
	// side by side.
	for _, o := range getOps {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			h := jobHarness(t, short)
			h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, Delay: time.Minute, Times: 1})
			if err := o.run(h, context.Background()); err != nil {
				t.Fatalf("%s: %v", o.name, err)
			}
			if got := h.codes(); !slices.Equal(got, []string{"error", "200"}) {
				t.Errorf("%s: attempts %v", o.name, got)
			}
			h.waitRequests(o.endpoint, 2)
		})
	}

	t.Run("every attempt", func(t *testing.T) {
		t.Parallel()
		h := jobHarness(t, func(c *client.Config) { short(c); c.Retry.MaxAttempts = 2 })
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Delay: time.Minute})
		err := opGetJob.run(h, context.Background())
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within "+timeout.String()) {
			t.Errorf("error %v, want a timeout", err)
		}
		h.waitRequests(mintlifytest.EndpointGetJob, 2)
	})

	// A POST that timed out may have been delivered: never repeated.
	t.Run("POST", func(t *testing.T) {
		t.Parallel()
		h := jobHarness(t, short)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointSendMessage, Delay: time.Minute})
		err := opSendMessage.run(h, context.Background())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want a timeout", err)
		}
		if got := h.codes(); !slices.Equal(got, []string{"error"}) {
			t.Errorf("POST: attempts %v, want one", got)
		}
		h.waitRequests(mintlifytest.EndpointSendMessage, 1)
		h.attemptErrs(t)
	})
}

// closedPort returns the address of a loopback port nobody listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestConnectionRefused(t *testing.T) {
	base := closedPort(t)
	for _, o := range allOps {
		h := jobHarness(t, func(c *client.Config) { c.BaseURL = base; c.Retry.MaxAttempts = 3 })
		err := o.run(h, context.Background())
		if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "gave up after 3 attempts") {
			t.Errorf("%s: error %v", o.name, err)
		}
		// The POST is retried too: it certainly never reached a server.
		if got := h.codes(); !slices.Equal(got, repeat("error", 3)) {
			t.Errorf("%s: attempts %v", o.name, got)
		}
	}
}

func TestContextCancelStopsRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := jobHarness(t, func(c *client.Config) {
		c.Retry.MaxAttempts = 10
		c.Retry.Sleep = func(ctx context.Context, d time.Duration) error {
			cancel()
			return ctx.Err()
		}
	})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 500})
	err := opGetJob.run(h, ctx)
	if !errors.Is(err, context.Canceled) || statusOf(err) != 500 {
		t.Errorf("error %v, want cancellation wrapping the HTTP 500", err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"500"}) {
		t.Errorf("attempts %v, want one", got)
	}

	// Cancelled while an attempt is in flight: no retry either.
	ctx2, cancel2 := context.WithCancel(context.Background())
	h = jobHarness(t, func(c *client.Config) {
		c.Hooks.Allow = func(context.Context, client.Endpoint) error {
			time.AfterFunc(20*time.Millisecond, cancel2)
			return nil
		}
	})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Delay: time.Minute})
	err = opGetJob.run(h, ctx2)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"error"}) {
		t.Errorf("attempts %v, want one", got)
	}
	if len(h.recordedSleeps()) != 0 {
		t.Error("slept before a retry after cancellation")
	}

	// The default sleep honours the context.
	ctx3, cancel3 := context.WithCancel(context.Background())
	cancel3()
	h = jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Status: 500})
	if err := opGetJob.run(h, ctx3); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v", err)
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests with a cancelled context", n)
	}
}

func TestDefaultSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ds, _ := generated(1)
	srv := apitest.Fake(t, mintlifytest.WithProject(testProject, ds))
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: 502})
	c, err := client.New(client.Config{
		BaseURL: srv.URL(),
		Key:     apitest.Key(t),
		// The longest delay, which the cancel cuts short.
		Retry: client.RetryPolicy{Jitter: func(time.Duration) time.Duration { return client.DefaultMaxDelay }},
		Hooks: client.Hooks{Observe: func(client.Attempt) { time.AfterFunc(10*time.Millisecond, cancel) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.PathsPage(ctx, client.EndpointVisitors, testProject, client.PathsQuery{})
	if !errors.Is(err, context.Canceled) || statusOf(err) != 502 {
		t.Errorf("error %v", err)
	}
	if d := time.Since(start); d >= client.DefaultMaxDelay/2 {
		t.Errorf("the retry's sleep was not cut short: %s", d)
	}
}

func mustStatic(t *testing.T, key string) client.KeySource {
	t.Helper()
	k, err := client.StaticKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestHooks(t *testing.T) {
	refusal := errors.New("budget exhausted")
	for _, o := range allOps {
		h := jobHarness(t, func(c *client.Config) {
			c.Hooks.Allow = func(_ context.Context, e client.Endpoint) error {
				if e.String() != o.endpoint {
					t.Errorf("Allow(%q) for %s", e, o.name)
				}
				return refusal
			}
		})
		err := o.run(h, context.Background())
		if !errors.Is(err, refusal) || !strings.HasPrefix(err.Error(), o.endpoint+": request not allowed") {
			t.Errorf("%s: error %v", o.name, err)
		}
		if n := len(h.requests()); n != 0 {
			t.Errorf("%s: %d requests sent after a refusal", o.name, n)
		}
		if n := len(h.codes()); n != 0 {
			t.Errorf("%s: Observe called %d times for nothing sent", o.name, n)
		}
	}

	// Allow is asked before every retry; a refusal there stops the call.
	var asked int
	h := jobHarness(t, func(c *client.Config) {
		c.Hooks.Allow = func(context.Context, client.Endpoint) error {
			asked++
			if asked > 2 {
				return refusal
			}
			return nil
		}
	})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: 500})
	err := opVisitors.run(h, context.Background())
	if !errors.Is(err, refusal) || statusOf(err) != 500 {
		t.Errorf("error %v, want the refusal and the last HTTP 500", err)
	}
	if asked != 3 || h.count(mintlifytest.EndpointVisitors) != 2 {
		t.Errorf("Allow asked %d times, %d requests; want 3 and 2", asked, h.count(mintlifytest.EndpointVisitors))
	}

	// Observe: one call per attempt, with endpoint, code and duration.
	h = jobHarness(t, nil)
	// (The reset comes first: on a reused connection Go's transport would
	// itself resend a GET whose connection dropped.)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Reset: true, Times: 1})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Status: 502, Times: 1})
	if err := opListJobs.run(h, context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"error", "502", "200"}) {
		t.Errorf("attempts %v", got)
	}
	for _, a := range h.attempts {
		if a.Endpoint != client.EndpointListJobs {
			t.Errorf("attempt endpoint %q", a.Endpoint)
		}
	}
	h.attemptErrs(t)
}

// headerRecorder is a transport that remembers the headers of every request
// it passes on.
type headerRecorder struct {
	mu      sync.Mutex
	headers []http.Header
}

func (r *headerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func TestHeaders(t *testing.T) {
	rec := &headerRecorder{}
	h := jobHarness(t, func(c *client.Config) {
		c.HTTPClient = &http.Client{Transport: rec}
		c.UserAgent = "mintlify_exporter/1.2.3"
	})
	for _, o := range allOps {
		if err := o.run(h, context.Background()); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
	}
	for i, hd := range rec.headers {
		if got := hd.Get("User-Agent"); got != "mintlify_exporter/1.2.3" {
			t.Errorf("request %d: User-Agent %q", i, got)
		}
		if got := hd.Get("Accept"); got != "application/json" {
			t.Errorf("request %d: Accept %q", i, got)
		}
		if got, want := hd.Get("Content-Type"), map[bool]string{true: "application/json"}[i == 3]; got != want {
			t.Errorf("request %d: Content-Type %q, want %q", i, got, want)
		}
	}
	for _, r := range h.requests() {
		if r.AuthHeader != "Bearer "+mintlifytest.DefaultKey || !r.Authorized {
			t.Errorf("%s: Authorization header not the bearer key", r.Endpoint)
		}
	}
	if len(rec.headers) != 4 {
		t.Errorf("%d requests", len(rec.headers))
	}

	// The default User-Agent.
	h = jobHarness(t, func(c *client.Config) { c.UserAgent = ""; c.HTTPClient = &http.Client{Transport: rec} })
	rec.headers = nil
	if err := opGetJob.run(h, context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rec.headers[0].Get("User-Agent"); got != client.DefaultUserAgent {
		t.Errorf("default User-Agent %q", got)
	}
}

func TestBodyTooLarge(t *testing.T) {
	for _, o := range getOps {
		h := jobHarness(t, nil)
		ep, _ := client.EndpointNamed(o.endpoint)
		h.srv.AddFault(mintlifytest.Fault{Endpoint: o.endpoint, Offset: mintlifytest.AnyOffset, BodyBytes: make([]byte, ep.MaxBody()+1)})
		err := o.run(h, context.Background())
		if !errors.Is(err, client.ErrBodyTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("exceeds %d bytes", ep.MaxBody())) {
			t.Errorf("%s: error %v", o.name, err)
		}
		if got := h.codes(); !slices.Equal(got, []string{"200"}) {
			t.Errorf("%s: attempts %v, want one", o.name, got)
		}
	}
	// Exactly at the cap is fine.
	h := jobHarness(t, nil)
	atCap := []byte(`{"allSessions":[]` + strings.Repeat(" ", int(client.EndpointListJobs.MaxBody())-len(`{"allSessions":[]}`)) + `}`)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, BodyBytes: atCap})
	if _, err := h.c.ListJobsV1(context.Background(), testProject); err != nil {
		t.Errorf("body at the cap: %v", err)
	}
}

func TestNewConfig(t *testing.T) {
	key := apitest.Key(t)
	for _, tc := range []struct {
		name string
		cfg  client.Config
		ok   bool
	}{
		{"defaults", client.Config{Key: key}, true},
		{"no key", client.Config{}, false},
		{"trailing slash", client.Config{Key: key, BaseURL: "http://127.0.0.1:9/"}, true},
		{"prefix", client.Config{Key: key, BaseURL: "https://example.invalid/api/"}, true},
		{"no scheme", client.Config{Key: key, BaseURL: "api.mintlify.com"}, false},
		{"ftp", client.Config{Key: key, BaseURL: "ftp://api.mintlify.com"}, false},
		{"query", client.Config{Key: key, BaseURL: "https://api.mintlify.com/?a=b"}, false},
		{"user info", client.Config{Key: key, BaseURL: "https://u:p@api.mintlify.com"}, false},
		{"unparsable", client.Config{Key: key, BaseURL: "http://[::1"}, false},
		{"negative timeout", client.Config{Key: key, Timeout: -1}, false},
		{"negative attempts", client.Config{Key: key, Retry: client.RetryPolicy{MaxAttempts: -1}}, false},
	} {
		c, err := client.New(tc.cfg)
		if (err == nil) != tc.ok || (c != nil) != tc.ok {
			t.Errorf("%s: New = %v, %v", tc.name, c, err)
		}
		if tc.name == "user info" && err != nil && strings.Contains(err.Error(), ":p@") {
			t.Errorf("error %q shows the password", err)
		}
	}
	if _, err := client.New(client.Config{}); !errors.Is(err, client.ErrNoKey) {
		t.Errorf("no key: %v, want ErrNoKey", err)
	}
}

func TestBaseURLPrefix(t *testing.T) {
	ds, _ := generated(3)
	srv := mintlifytest.NewUnstartedServer(mintlifytest.WithProject(testProject, ds))
	mux := http.NewServeMux()
	mux.Handle("/prefix/", http.StripPrefix("/prefix", srv.Handler()))
	hs := httptest.NewServer(mux)
	defer hs.Close()
	c, err := client.New(client.Config{BaseURL: hs.URL + "/prefix/", Key: apitest.Key(t)})
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{})
	if err != nil || len(page.Rows) != 3 {
		t.Fatalf("through a prefix: %v, %v", page, err)
	}
}

// TestIsTransient: a 429, a 5xx and a failure without an answer may pass;
// what the client refused, an invalid id and a certificate recur.
func TestIsTransient(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("get_job: %w", err) }
	for err, want := range map[error]bool{
		&client.APIError{StatusCode: 429}:                          true,
		wrap(&client.APIError{StatusCode: 503}):                    true,
		wrap(&net.OpError{Op: "dial", Err: errors.New("refused")}): true,
		&client.APIError{StatusCode: 404}:                          false,
		&client.APIError{StatusCode: 401}:                          false,
		&client.DecodeError{Reason: "x"}:                           false,
		wrap(client.ErrBodyTooLarge):                               false,
		wrap(client.ErrInvalidID):                                  false,
		&client.CertificateError{Err: errors.New("x509")}:          false,
	} {
		if got := client.IsTransient(err); got != want {
			t.Errorf("IsTransient(%v) = %v, want %v", err, got, want)
		}
	}
}
