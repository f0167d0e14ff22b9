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
	s, _ := newServer(t, mintlifytest.WithProject("a", tinyDataset()), mintlifytest.WithLatency(30*time.Millisecond))
	start := time.Now()
	if r := get(t, s, "/v1/analytics/a/visitors"); r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("answered after %v, latency 30ms", el)
	}

	s.SetLatency(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/v1/analytics/a/visitors", nil)
	req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want deadline exceeded", err)
	}
	// The abandoned request is logged without a status once its handler
	// notices the cancellation.
	waitForRequests(t, s, 2)
	if reqs := s.Requests(); reqs[1].Status != 0 {
		t.Fatalf("abandoned request logged with status %d", reqs[1].Status)
	}

	// Close ends a request waiting on latency, handler included.
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("GET", s.URL()+"/v1/analytics/a/visitors", nil)
		_, err := http.DefaultClient.Do(req)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // give the request time to reach the handler
	s.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("request answered despite Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close left a request hanging")
	}
	waitForRequests(t, s, 3)
}

// waitForRequests polls the log until it holds n requests: handlers log
// after the client has seen the connection end.
func waitForRequests(t *testing.T, s *mintlifytest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.CountRequests("") < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests logged, want %d", s.CountRequests(""), n)
		}
		time.Sleep(time.Millisecond)
	}
}
