package exporter

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/prometheus/exporter-toolkit/web"
)

// TestServerTimeouts: the server ends clients that send or read slowly, so
// that they cannot hold every scrape slot.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	for name, got := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if got <= 0 || got > 5*time.Minute {
			t.Errorf("%s = %s, want a bound of a few minutes at most", name, got)
		}
	}
	if srv.WriteTimeout != RequestTimeout || srv.ReadTimeout < srv.ReadHeaderTimeout {
		t.Errorf("WriteTimeout %s (want RequestTimeout %s), ReadTimeout %s, ReadHeaderTimeout %s",
			srv.WriteTimeout, RequestTimeout, srv.ReadTimeout, srv.ReadHeaderTimeout)
	}
}

// toolkitFlags are exporter-toolkit's flags listening on addrs, without
// TLS or systemd.
func toolkitFlags(addrs ...string) *web.FlagConfig {
	systemd, config := false, ""
	return &web.FlagConfig{WebListenAddresses: &addrs, WebSystemdSocket: &systemd, WebConfigFile: &config}
}

// TestListenNamesTheFlag: a port in use is refused by Listen, before the
// exporter starts, naming --web.listen-address, and the sockets Listen had
// already opened are closed.
func TestListenNamesTheFlag(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()
	_, err = Listen(toolkitFlags(freeAddr, busy.Addr().String()))
	if err == nil || !strings.Contains(err.Error(), "--web.listen-address="+busy.Addr().String()) || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("Listen on a port in use: %v", err)
	}
	again, err := net.Listen("tcp", freeAddr)
	if err != nil {
		t.Fatalf("the first address stayed open after the second failed: %v", err)
	}
	again.Close()
}

// TestServeUntilCancelled: Serve answers on the sockets Listen opened and
// returns nil once its context ends.
func TestServeUntilCancelled(t *testing.T) {
	fake := apitest.Fake(t)
	key := apitest.Key(t)
	x, err := New(Config{APIURL: fake.URL(), Key: key, Timeout: 5 * time.Second, Projects: []string{"docs"}, RequestsPerHour: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ls, err := Listen(toolkitFlags("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- x.Serve(ctx, ls, slog.New(slog.DiscardHandler)) }()
	resp, err := http.Get("http://" + ls.ls[0].Addr().String() + "/-/healthy")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Healthy") {
		t.Errorf("/-/healthy: %d %q", resp.StatusCode, body)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve after its context ended: %v", err)
	}
}
