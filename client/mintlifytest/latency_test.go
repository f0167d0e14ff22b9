package mintlifytest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestLatency(t *testing.T) {
	arrived := make(chan mintlifytest.Request, 3)
	logged := make(chan mintlifytest.Request, 3)
	s, _ := newServer(t, mintlifytest.WithProject("a", tinyDataset()), mintlifytest.WithLatency(30*time.Millisecond),
		mintlifytest.WithEvents(mintlifytest.Events{
			Arrived: func(r mintlifytest.Request) { arrived <- r },
			Logged:  func(r mintlifytest.Request) { logged <- r },
		}))
	start := time.Now()
	if r := get(t, s, "/v1/analytics/a/visitors"); r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("answered after %v, latency 30ms", el)
	}
	waitFor(t, arrived, "the first request to arrive")
	waitFor(t, logged, "the first request to be logged")

	s.SetLatency(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/v1/analytics/a/visitors", nil)
	req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want deadline exceeded", err)
	}
	waitFor(t, arrived, "the abandoned request to arrive")
	// The abandoned request is logged without a status once its handler
	// notices the cancellation.
	if r := waitFor(t, logged, "the abandoned request to be logged"); r.Status != 0 {
		t.Fatalf("abandoned request logged with status %d", r.Status)
	}

	// Close ends a request waiting on latency, handler included.
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("GET", s.URL()+"/v1/analytics/a/visitors", nil)
		_, err := http.DefaultClient.Do(req)
		done <- err
	}()
	waitFor(t, arrived, "the third request to reach the handler")
	s.Close()
	if err := waitFor(t, done, "the request cut by Close"); err == nil {
		t.Fatal("request answered despite Close")
	}
	waitFor(t, logged, "the request cut by Close to be logged")
}

// waitFor returns the next value of ch. Its bound only turns a hang into a
// failure: a passing run never waits for it.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("waited 10s for %s", what)
		panic("unreachable")
	}
}
