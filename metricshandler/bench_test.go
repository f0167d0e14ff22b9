package metricshandler_test

// Scrape benchmarks (issue 7): a scrape through the real handler against
// serving the same bytes from memory, at 1k, 10k and 100k paths × 1 window
// (3 series a path), plain and gzip; and, for context, the idiomatic
// promhttp.HandlerFor over the same collectors.
//
//	go test -run '^$' -bench . -benchmem ./metricshandler/

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/metricshandler"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// scrapeFixture is an exporter as main wires it (Go, process, build info,
// status, budget and API metrics in the live part; the handler
// instrumented), whose visitors collector made its first refresh against
// the fake API.
type scrapeFixture struct {
	handler http.Handler
	// slow is promhttp.HandlerFor over the same collectors.
	slow http.Handler
	// bodies are answers of the handler, by encoding ("plain", "gzip").
	bodies map[string][]byte
}

var (
	scrapeFixturesMu sync.Mutex
	scrapeFixtures   = map[int]*scrapeFixture{}
)

// getScrapeFixture returns the fixture of n paths, made once per run.
func getScrapeFixture(b *testing.B, n int) *scrapeFixture {
	b.Helper()
	scrapeFixturesMu.Lock()
	defer scrapeFixturesMu.Unlock()
	if f, ok := scrapeFixtures[n]; ok {
		return f
	}
	srv := mintlifytest.NewServer(
		mintlifytest.WithClock(fixedNow),
		mintlifytest.WithProject("bench-docs", mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(n), Paths: n, Days: 1, End: dataDay,
		})),
	)
	defer srv.Close() // the snapshot stays current: the fake is needed once
	status := collector.NewStatus()
	budget := collector.NewBudget(1_000_000, fixedNow)
	apiMetrics := collector.NewAPIMetrics()
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.New(client.Config{
		BaseURL: srv.URL(), Key: key,
		Hooks: client.Hooks{Allow: budget.Allow, Observe: apiMetrics.Observe},
	})
	if err != nil {
		b.Fatal(err)
	}
	v, err := collector.NewVisitors(collector.VisitorsConfig{
		Client: c, Projects: []string{"bench-docs"}, Windows: []collector.Window{{Name: "1d", Days: 1}},
		MinInterval: 15 * time.Minute, PageSize: 250, MaxPages: 1000, PageConcurrency: 4,
		Budget: budget, Status: status, Now: fixedNow,
	})
	if err != nil {
		b.Fatal(err)
	}
	v.Touch(context.Background(), 5*time.Minute)
	if snaps := v.Snapshots(); len(snaps) != 1 || len(snaps[0].Rows) != n {
		b.Fatalf("first refresh: %+v", v.States())
	}
	live := prometheus.NewRegistry()
	live.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		versioncollector.NewCollector("mintlify_exporter"),
		status, budget, apiMetrics,
	)
	vreg := prometheus.NewRegistry()
	vreg.MustRegister(v)
	f := &scrapeFixture{
		handler: metricshandler.New(metricshandler.Config{
			Live: live, Visitors: v, MaxRequests: 40, FirstWait: 10 * time.Second, Instrument: live,
		}),
		slow:   promhttp.HandlerFor(prometheus.Gatherers{live, vreg}, promhttp.HandlerOpts{}),
		bodies: map[string][]byte{},
	}
	for enc := range encodings {
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, benchRequest(enc))
		if rec.Code != http.StatusOK {
			b.Fatalf("%s scrape: status %d", enc, rec.Code)
		}
		f.bodies[enc] = rec.Body.Bytes()
	}
	scrapeFixtures[n] = f
	return f
}

// encodings maps an encoding to its Accept-Encoding header.
var encodings = map[string]string{"plain": "", "gzip": "gzip"}

func benchRequest(enc string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", acceptText)
	if h := encodings[enc]; h != "" {
		req.Header.Set("Accept-Encoding", h)
	}
	return req
}

// serveLoop serves b.N requests into recorders that reuse one body
// buffer, so that neither side pays for growing it.
func serveLoop(b *testing.B, h http.Handler, enc string, size int) {
	req := benchRequest(enc)
	buf := make([]byte, 0, size+size/4+64<<10)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rec := httptest.NewRecorder()
		rec.Body = bytes.NewBuffer(buf[:0])
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.Len() < size/2 {
			b.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
		}
	}
	b.StopTimer()
}

// ratioBase holds the ns/op of the last BenchmarkServeBytes run, by case.
var ratioBase sync.Map // string -> float64

// BenchmarkServeBytes is the floor of a scrape: a handler that writes the
// full answer of the exporter (for gzip, the compressed one) from memory.
func BenchmarkServeBytes(b *testing.B) {
	forCases(b, benchSizes, serveBytes)
}

func serveBytes(b *testing.B, enc string, n int) {
	body := getScrapeFixture(b, n).bodies[enc]
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8; escaping=underscores")
		if enc == "gzip" {
			hdr.Set("Content-Encoding", "gzip")
			hdr.Add("Vary", "Accept-Encoding")
		} else {
			hdr.Set("Content-Length", strconv.Itoa(len(body)))
		}
		_, _ = w.Write(body)
	})
	serveLoop(b, h, enc, len(body))
	ratioBase.Store(enc+"/"+strconv.Itoa(n), float64(b.Elapsed().Nanoseconds())/float64(b.N))
}

// BenchmarkScrape is a scrape through the exporter's handler. x-serve-bytes
// is its ratio to BenchmarkServeBytes of the same case.
func BenchmarkScrape(b *testing.B) {
	forCases(b, benchSizes, func(b *testing.B, enc string, n int) {
		f := getScrapeFixture(b, n)
		serveLoop(b, f.handler, enc, len(f.bodies[enc]))
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		base, ok := ratioBase.Load(enc + "/" + strconv.Itoa(n))
		if !ok { // BenchmarkServeBytes did not run: measure it now
			r := testing.Benchmark(func(b *testing.B) { serveBytes(b, enc, n) })
			base = float64(r.T.Nanoseconds()) / float64(r.N)
		}
		b.ReportMetric(ns/base.(float64), "x-serve-bytes")
	})
}

// BenchmarkPromhttp is the idiomatic design, for context: every scrape
// collects the snapshots into const metrics and encodes (and compresses)
// them with promhttp.HandlerFor.
func BenchmarkPromhttp(b *testing.B) {
	forCases(b, benchSizes[1:], func(b *testing.B, enc string, n int) {
		f := getScrapeFixture(b, n)
		serveLoop(b, f.slow, enc, len(f.bodies[enc]))
	})
}

func forCases(b *testing.B, sizes []int, run func(b *testing.B, enc string, n int)) {
	for _, enc := range []string{"plain", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) { run(b, enc, n) })
			}
		})
	}
}
