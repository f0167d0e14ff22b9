package backfill_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// goldenDir holds the bytes TestGolden compares with; GOLDEN_UPDATE=1
// writes them again.
const goldenDir = "testdata/golden"

// goldenRecorder collects what a scenario produced, normalized (the
// servers' ports and the receiver's hash vary from run to run).
type goldenRecorder struct {
	t      *testing.T
	repl   *strings.Replacer
	jitter bool
	parts  []string
}

var (
	goldenHash = regexp.MustCompile(`sha256 [0-9a-f]{16}`)
	// goldenJitter: the client's retries wait a random part of a second,
	// so the times of a run with faults are left out.
	goldenJitter = regexp.MustCompile(`\d\d:\d\d:\d\d(\.\d+)?`)
)

func (g *goldenRecorder) add(what string, data []byte) {
	s := goldenHash.ReplaceAllString(g.repl.Replace(string(data)), "sha256 HASH")
	if g.jitter {
		s = goldenJitter.ReplaceAllString(s, "TIME")
	}
	g.parts = append(g.parts, "=== "+what+"\n"+s)
}

func (g *goldenRecorder) addFile(what, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		data = []byte("(" + err.Error() + ")\n")
	}
	g.add(what, data)
}

func (g *goldenRecorder) check(name string) {
	g.t.Helper()
	got := strings.Join(g.parts, "\n")
	path := filepath.Join(goldenDir, name+".txt")
	if os.Getenv("GOLDEN_UPDATE") != "" {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			g.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		g.t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			if i >= len(gl) || i >= len(wl) || gl[i] != wl[i] {
				g.t.Fatalf("%s differs from %s at line %d:\n got %q\nwant %q", name, path, i+1, at(gl, i), at(wl, i))
			}
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(end)"
}

// rawReceiver records the decoded body of every request it accepts.
type rawReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	fail   func(n int) int
	n      int
}

func newRawReceiver(t *testing.T) *rawReceiver {
	r := &rawReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.n++
		if r.fail != nil {
			if code := r.fail(r.n); code != 0 {
				http.Error(w, fmt.Sprintf("answer %d\nsecond line", code), code)
				return
			}
		}
		data, err := snappy.Decode(nil, body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		r.bodies = append(r.bodies, data)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *rawReceiver) dump() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for i, body := range r.bodies {
		fmt.Fprintf(&b, "request %d:\n%s", i+1, hex.Dump(body))
	}
	return []byte(b.String())
}

var allSources = []string{"visitors", "views", "assistant", "feedback", "searches"}

// TestGolden pins the bytes of a backfill's outputs: the OpenMetrics file,
// the journal (interrupted and resumed), the plan, progress and report, and
// the remote-write requests.
func TestGolden(t *testing.T) {
	labels := []backfill.Label{{Name: "env", Value: "a\"b\\c\nd"}, {Name: "job", Value: "mintlify"}}
	for _, sc := range []struct {
		name     string
		sources  []string
		pages    bool
		terminal bool
		rw       bool
		cut      int // the request that interrupts the first run
		fail     func(n int) int
		faults   []mintlifytest.Fault
	}{
		{name: "file-site", sources: allSources, cut: 7},
		{name: "file-pages-terminal", sources: []string{"visitors", "views"}, pages: true, terminal: true, cut: 9},
		{name: "file-pages", sources: allSources, pages: true, cut: 13},
		{name: "file-faults-terminal", sources: []string{"visitors", "views"}, pages: true, terminal: true, cut: 1000, faults: []mintlifytest.Fault{
			{Endpoint: mintlifytest.EndpointVisitors, Offset: 2, Status: 500, AfterN: 2, Times: 6},
			{Endpoint: mintlifytest.EndpointViews, AfterN: 5, Times: 1, Status: 429, RetryAfter: "600"}}},
		{name: "file-faults", sources: []string{"visitors", "views"}, cut: 1000, faults: []mintlifytest.Fault{
			{Endpoint: mintlifytest.EndpointVisitors, Status: 500, AfterN: 2, Times: 6},
			{Endpoint: mintlifytest.EndpointViews, AfterN: 5, Times: 1, Status: 429, RetryAfter: "6000"}}},
		{name: "rw-site", sources: allSources, rw: true, cut: 8},
		{name: "rw-pages-terminal", sources: []string{"visitors", "views"}, pages: true, terminal: true, rw: true, cut: 6,
			fail: func(n int) int {
				if n == 2 {
					return 503
				}
				return 0
			}},
		{name: "rw-refused", sources: []string{"visitors"}, rw: true, cut: 1000,
			fail: func(n int) int {
				if n == 3 {
					return 400
				}
				return 0
			}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(t)
			h.sources = sc.sources
			for _, f := range sc.faults {
				h.srv.AddFault(f)
			}
			var recv *rawReceiver
			var rw *backfill.RemoteWriter
			pairs := []string{h.srv.URL(), "API", h.dir, "DIR"}
			if sc.rw {
				recv = newRawReceiver(t)
				recv.fail = sc.fail
				pairs = append(pairs, recv.srv.URL, "RECV")
				rw = newWriter(t, recv.srv.URL+"/api/v1/write?token=secret1234", "")
			}
			g := &goldenRecorder{t: t, repl: strings.NewReplacer(pairs...), jitter: len(sc.faults) > 0}
			out, journal := h.path("history.om"), h.path("history.om.journal")
			config := func() backfill.Config {
				cfg := h.config(day(0), day(4), out)
				if sc.rw {
					cfg = h.config(day(0), day(4), "")
					cfg.RemoteWrite, cfg.Journal = rw, h.path("rw.journal")
					journal = cfg.Journal
				}
				cfg.Labels, cfg.Pages, cfg.Terminal = labels, sc.pages, sc.terminal
				return cfg
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h.beforeSend = func(n int) error {
				if n == sc.cut {
					cancel()
					return context.Canceled
				}
				return nil
			}
			res, err := h.run(ctx, config())
			g.add("first run", fmt.Appendf(nil, "%s--- exit %d, err %v, result %+v\n", h.out.String(), backfill.ExitCode(res, err), err, res))
			g.addFile("journal after the first run", journal)
			g.addFile("output after the first run", out)
			if recv != nil {
				g.add("requests of the first run", recv.dump())
			}
			h.beforeSend = nil
			cfg := config()
			cfg.Resume = true
			res, err = h.run(context.Background(), cfg)
			g.add("resumed run", fmt.Appendf(nil, "%s--- exit %d, err %v, result %+v\n", h.out.String(), backfill.ExitCode(res, err), err, res))
			g.addFile("journal after the resumed run", journal)
			g.addFile("output after the resumed run", out)
			if recv != nil {
				g.add("requests of both runs", recv.dump())
			}
			cfg = config()
			cfg.Force, cfg.DryRun = true, true
			res, err = h.run(context.Background(), cfg)
			g.add("dry run", fmt.Appendf(nil, "%s--- exit %d, err %v, result %+v\n", h.out.String(), backfill.ExitCode(res, err), err, res))
			g.check(sc.name)
		})
	}
}
