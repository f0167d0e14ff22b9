package backfill_test

import (
	"context"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// TestBackfillBudgetSeesEveryRequestTheServerReads: backfill shares the
// exporter's client. Behind a proxy that resets a kept-alive connection
// after reading a request on it (net/http would resend the GET on a new
// connection, unseen by the budget), with a budget of 10 an hour, the
// proxy reads exactly the analytics requests the budget let go, at most 10
// in any hour.
func TestBackfillBudgetSeesEveryRequestTheServerReads(t *testing.T) {
	h := newHarness(t)
	h.perHour = 10
	proxy, err := mintlifytest.NewResetProxy(h.srv.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)

	cfg := h.config(day(-20), day(8), h.path("out.om"))
	var mu sync.Mutex
	var allowed []time.Time
	c, err := client.New(client.Config{
		BaseURL: proxy.URL(), Key: apitest.Key(t), Now: h.clock.Now,
		Retry: client.RetryPolicy{MaxAttempts: 2, Sleep: func(ctx context.Context, d time.Duration) error {
			return h.waitUntil(ctx, h.clock.Now().Add(d))
		}},
		Hooks: client.Hooks{
			Allow: func(ctx context.Context, e client.Endpoint) error {
				if err := cfg.Budget.Allow(ctx, e); err != nil {
					return err
				}
				if e.Analytics() {
					mu.Lock()
					allowed = append(allowed, h.clock.Now())
					mu.Unlock()
				}
				return nil
			},
			Unsent: func(e client.Endpoint) {
				cfg.Budget.Unsent(e)
				if e.Analytics() {
					mu.Lock()
					allowed = allowed[:len(allowed)-1]
					mu.Unlock()
				}
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sources, err = collector.Build(h.sources, c, collector.Options{PageSize: 2, MaxPages: 100}); err != nil {
		t.Fatal(err)
	}
	res, err := h.run(context.Background(), cfg)
	if code := backfill.ExitCode(res, err); code != backfill.ExitOK {
		t.Fatalf("run: exit %d, %v\n%s", code, err, h.out.String())
	}
	read := proxy.Reads("/v1/analytics/", "")
	mu.Lock()
	defer mu.Unlock()
	if read != len(allowed) {
		t.Errorf("the server read %d analytics requests; the budget let %d go", read, len(allowed))
	}
	if most := maxInSlidingHour(allowed); most > h.perHour {
		t.Errorf("%d requests in one hour; the budget is %d", most, h.perHour)
	}
	if read < 2*h.perHour {
		t.Errorf("the run read %d requests, want more than two hours of the budget: the test tests too little", read)
	}
}

// TestBackfillStopsAtACertificateError: an API address whose certificate
// the client does not trust (an intercepting proxy) stops the backfill at
// the first fetch, as a 401 does, rather than failing every day in turn:
// one handshake, no request reaches the API, and the error says what to
// check.
func TestBackfillStopsAtACertificateError(t *testing.T) {
	h := newHarness(t)
	var handshakes atomic.Int32
	tlsSrv := httptest.NewUnstartedServer(h.srv.Handler())
	tlsSrv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			handshakes.Add(1)
		}
	}
	tlsSrv.Config.ErrorLog = stdlog.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	cfg := h.config(day(0), day(5), h.path("out.om"))
	c, err := client.New(client.Config{BaseURL: tlsSrv.URL, Key: apitest.Key(t), Now: h.clock.Now,
		Hooks: client.Hooks{Allow: cfg.Budget.Allow, Unsent: cfg.Budget.Unsent}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sources, err = collector.Build(h.sources, c, collector.Options{PageSize: 2, MaxPages: 100}); err != nil {
		t.Fatal(err)
	}
	res, err := h.run(context.Background(), cfg)
	if code := backfill.ExitCode(res, err); code == backfill.ExitOK || err == nil {
		t.Fatalf("exit %d, %v; want an error", code, err)
	}
	for _, want := range []string{"certificate", "--mintlify.api-url", "--resume"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if n := handshakes.Load(); n != 1 {
		t.Errorf("%d connections, want 1 (stopped at the first)", n)
	}
	if n := len(h.srv.Requests()); n != 0 || cfg.Budget.Used() != 0 {
		t.Errorf("the API got %d requests, the budget counts %d; want 0 and 0", n, cfg.Budget.Used())
	}
}
