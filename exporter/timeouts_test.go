package exporter_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

// TestServerTimeouts: the server ends slow clients (issue 19: 40 clients
// reading a byte a second held every scrape slot).
func TestServerTimeouts(t *testing.T) {
	srv := exporter.NewServer(http.NotFoundHandler(), nil)
	for name, got := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if got <= 0 || got > 5*time.Minute {
			t.Errorf("%s = %s, want a bound of a few minutes at most", name, got)
		}
	}
	if srv.WriteTimeout != exporter.RequestTimeout || srv.ReadTimeout < srv.ReadHeaderTimeout {
		t.Errorf("WriteTimeout %s (want RequestTimeout %s), ReadTimeout %s, ReadHeaderTimeout %s",
			srv.WriteTimeout, exporter.RequestTimeout, srv.ReadTimeout, srv.ReadHeaderTimeout)
	}
}
