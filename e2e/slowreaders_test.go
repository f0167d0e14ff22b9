package e2e

// Clients that read /metrics slowly must not take every scrape slot
// (--web.max-requests): a scrape gives its slot back once its answer is
// ready, and the server's write timeout ends a client that reads too
// slowly.

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSlowReadersDoNotTakeEveryScrapeSlot(t *testing.T) {
	if testing.Short() {
		t.Skip("refreshes a 10,000-path site (-short)")
	}
	t.Parallel()
	today := utcToday()
	srv := newFake(t, today, map[string]int{"slow-a": 10000})
	p := startExporter(t, keyEnv, append(exporterArgs(srv.URL(), "slow-a"),
		"--mintlify.requests-per-hour=1000", "--web.max-requests=40")...)
	// The answer must be larger than what the socket buffers hold (the
	// server's send buffer grows to 4 MiB), so that a client that does not
	// read blocks the server's write.
	eventually(t, 60*time.Second, "the 10,000-path site to be served", func() string {
		resp, body := p.get(t, "/metrics", nil)
		if resp.StatusCode != http.StatusOK || len(body) < 5<<20 {
			return "a scrape of " + resp.Status + ", " + strconv.Itoa(len(body)) + " bytes"
		}
		return ""
	})

	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	// 40 slow readers of the text format (what Prometheus gets) and 40 of
	// OpenMetrics only (the slow path, client_golang's encoder).
	for i := range 80 {
		conn, err := dialer.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		accept := ""
		if i >= 40 {
			accept = "Accept: application/openmetrics-text;version=1.0.0\r\n"
		}
		if _, err := conn.Write([]byte("GET /metrics HTTP/1.1\r\nHost: " + p.addr + "\r\n" + accept + "\r\n")); err != nil {
			t.Fatal(err)
		}
		// Read the status line only: the exporter is now sending this
		// answer, and the client reads no further.
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		line, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
		if err != nil || !strings.Contains(line, "200") {
			t.Fatalf("slow reader %d: %q, %v", i, line, err)
		}
	}
	for range 3 {
		resp, body := p.get(t, "/metrics", map[string]string{
			"Accept": "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1",
		})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "mintlify_up") {
			t.Fatalf("a scrape while 80 clients read slowly: HTTP %d (%.200s)", resp.StatusCode, body)
		}
	}
}
