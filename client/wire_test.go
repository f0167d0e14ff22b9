package client_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// resetProxy starts a mintlifytest.ResetProxy in front of srv.
func resetProxy(t *testing.T, srv *mintlifytest.Server, refuseAfterReset bool) *mintlifytest.ResetProxy {
	t.Helper()
	p, err := mintlifytest.NewResetProxy(srv.URL(), refuseAfterReset)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestBudgetSeesEveryRequestTheServerReads is the done-when of issue 38's
// first item, at the wire: behind a proxy that reads a request on a
// kept-alive connection and then resets it (so net/http would send the GET
// again on a new connection, unseen by the budget), the engine runs for
// 10 minutes of a manual clock with a budget of 12 an hour and a 60 s
// refresh interval. The proxy must read at most 12 analytics requests,
// every one the budget counted, and the log must never say a request was
// not spent. With refuseAfterReset the proxy stops listening at its first
// reset, so a transport's re-dial is refused: the request it wrote must
// not be taken back.
func TestBudgetSeesEveryRequestTheServerReads(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		name := "reset"
		if refuse {
			name = "reset then refuse"
		}
		t.Run(name, func(t *testing.T) {
			ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 38, Paths: 10, End: testEnd})
			rig := apitest.NewRig(t, testClock(), mintlifytest.WithProject(testProject, ds))
			clk := rig.Clock
			proxy := resetProxy(t, rig.Fake, refuse)

			const perHour = 12
			b := rig.Budget(perHour)
			logs := &logbuf.Buffer{}
			e := newEngine(t, rig, proxy.URL(), b, health.NewStatus(), logs)
			e.Start()
			defer e.Close()
			for step := time.Duration(0); step <= 10*time.Minute; step += 15 * time.Second {
				if !clk.Settle(1, time.Minute) {
					t.Fatalf("the engine still works after a minute at +%s", step)
				}
				clk.Advance(15 * time.Second)
			}
			if !clk.Settle(1, time.Minute) {
				t.Fatal("the engine still works after a minute at the end")
			}
			read := proxy.Reads("/v1/analytics/", "")
			if read > perHour {
				t.Errorf("the server read %d analytics requests in 10 minutes; the budget is %d an hour", read, perHour)
			}
			if used := b.Used(); used < read {
				t.Errorf("the server read %d analytics requests, the budget counted %d", read, used)
			}
			if ok := rig.Fake.Requests(); len(ok) == 0 || ok[0].Status != http.StatusOK {
				t.Fatalf("the fake answered no analytics request with 200: the test tests nothing (%d read)", read)
			}
			if strings.Contains(logs.String(), "not spent") || strings.Contains(logs.String(), "was spent") {
				t.Errorf("the log says a request was not spent, but the server read it:\n%s", logs.String())
			}
		})
	}
}

// TestTakeBackOnlyWhatWasNeverWritten: with an HTTP client of the caller's
// that keeps connections alive, the transport resends a GET on a new
// connection when the proxy resets the kept-alive one after reading; when
// that re-dial is refused, the error is a dial error, but the request was
// written: the Unsent hook must not take it back and the error is not a
// connect failure. A request to an address nothing listens on is taken
// back.
func TestTakeBackOnlyWhatWasNeverWritten(t *testing.T) {
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 38, Paths: 10, End: testEnd})
	srv := apitest.NewRig(t, testClock(), mintlifytest.WithProject(testProject, ds)).Fake
	proxy := resetProxy(t, srv, true)
	var mu sync.Mutex
	allowed, unsent := 0, 0
	hc := &http.Client{Transport: &http.Transport{}} // keep-alive, as net/http's default
	t.Cleanup(hc.CloseIdleConnections)
	c, err := client.New(client.Config{
		BaseURL: proxy.URL(), Key: apitest.Key(t), HTTPClient: hc, Now: testClock,
		Retry: client.RetryPolicy{MaxAttempts: 1},
		Hooks: client.Hooks{
			Allow:  func(context.Context, client.Endpoint) error { mu.Lock(); allowed++; mu.Unlock(); return nil },
			Unsent: func(client.Endpoint) { mu.Lock(); unsent++; mu.Unlock() },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := client.DateRange{From: client.DateOf(testEnd.AddDate(0, 0, -7)), To: client.DateOf(testEnd)}
	q := client.PathsQuery{Range: r, Limit: 10}
	if _, err := c.PathsPage(context.Background(), client.EndpointVisitors, testProject, q); err != nil {
		t.Fatalf("first request, on a fresh connection: %v", err)
	}
	_, err = c.PathsPage(context.Background(), client.EndpointVisitors, testProject, q)
	if err == nil {
		t.Fatal("the second request, on the reset connection, succeeded: the proxy did not reset it")
	}
	if proxy.Resets() != 1 || proxy.Reads("", "") != 2 {
		t.Fatalf("the proxy read %d requests and reset %d connections; want 2 and 1", proxy.Reads("", ""), proxy.Resets())
	}
	if unsent != 0 {
		t.Errorf("the client took back %d requests; the proxy read both (%d allowed)", unsent, allowed)
	}
	if client.IsConnectFailure(err) {
		t.Errorf("a request the server read is reported as a connect failure: %v", err)
	}

	// Nothing listens: nothing written, taken back.
	proxy.Close()
	c2, err := client.New(client.Config{
		BaseURL: proxy.URL(), Key: apitest.Key(t), Now: testClock, Retry: client.RetryPolicy{MaxAttempts: 1},
		Hooks: client.Hooks{Unsent: func(client.Endpoint) { mu.Lock(); unsent++; mu.Unlock() }},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.PathsPage(context.Background(), client.EndpointVisitors, testProject, q)
	if !client.IsConnectFailure(err) || unsent != 1 {
		t.Errorf("a refused connection: IsConnectFailure %v, taken back %d (want true, 1): %v", client.IsConnectFailure(err), unsent, err)
	}
}

// newEngine is an engine of the visitors and views sources of testProject
// over 1d, 7d and 30d, refreshed every minute at most, on clk, with a
// client of baseURL whose Allow and Unsent hooks are b's; not started.
func newEngine(t *testing.T, rig *apitest.Rig, baseURL string, b *budget.Budget, st *health.Status, logs *logbuf.Buffer) *engine.Engine {
	t.Helper()
	clk := rig.Clock
	c, err := client.New(client.Config{
		BaseURL: baseURL, Key: apitest.Key(t), Timeout: 5 * time.Second, Now: clk.Now,
		Retry: client.RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
			return clk.WaitUntil(ctx, clk.Now().Add(d))
		}},
		Hooks: client.Hooks{Allow: b.Allow, Unsent: b.Unsent},
	})
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := collector.Build([]string{"visitors", "views"}, c, collector.Options{PageSize: 250})
	if err != nil {
		t.Fatal(err)
	}
	windows := apitest.Windows(t, "1d", "7d", "30d")
	return rig.Engine(engine.Config{
		Sources: srcs, Projects: []string{testProject}, Windows: windows,
		MinInterval: time.Minute, Budget: b, Status: st, Logger: log.NewLogfmtLogger(logs),
	})
}
