package metricshandler_test

// Scrape benchmarks: a scrape through the real handler against
// serving the same bytes from memory, at 1k, 10k and 100k paths × 1 window
// (3 series a path), plain and gzip; and, for context, the idiomatic
// promhttp.HandlerFor over the same collectors.
//
//	go test -run '^$' -bench . -benchmem ./metricshandler/

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/metricshandler"
)

var benchSizes = []int{1_000, 10_000, 20_000, 100_000}

// scrapeFixture is an exporter as main wires it (Go, process, build info,
// status, budget and API metrics in the live part; the handler
// instrumented), whose visitors collector made its first refresh against
// the fake API, served on loopback.
type scrapeFixture struct {
	live prometheus.Gatherers
	// own gathers the exporter's own live collectors (build info, status,
	// budget, API metrics).
	own     *prometheus.Registry
	handler *httptest.Server
	// slow serves promhttp.HandlerFor over the same collectors.
	slow *httptest.Server
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
	status := health.NewStatus()
	clk := mintlifytest.NewClock(fixedNow())
	budget := budget.New(1_000_000, fixedNow)
	own := prometheus.NewRegistry()
	observeAPI := health.ObserveAPI(own)
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.New(client.Config{
		BaseURL: srv.URL(), Key: key,
		Hooks: client.Hooks{Allow: budget.Allow, Observe: observeAPI},
	})
	if err != nil {
		b.Fatal(err)
	}
	src := collector.NewVisitors(c.PathsPage, collector.Options{PageSize: 250, MaxPages: 1000})
	v, err := engine.New(engine.Config{
		Sources: []engine.Source{src}, Projects: []string{"bench-docs"}, Windows: []engine.Window{{Name: "1d", Days: 1}},
		MinInterval: 15 * time.Minute, Budget: budget, Status: status, Now: clk.Now, WaitUntil: clk.WaitUntil,
	})
	if err != nil {
		b.Fatal(err)
	}
	v.Start()
	waitReady(b, v, clk)
	// The window splits into its site totals and its page walk; the walk exports every path.
	st := v.States()
	if i := slices.IndexFunc(st, func(u engine.UnitState) bool { return u.Part == health.PartPages }); len(st) != 2 || i < 0 || st[i].Summary != fmt.Sprintf("%d paths, %d exported", n, n) {
		b.Fatalf("first refresh: %+v", st)
	}
	own.MustRegister(versioncollector.NewCollector("mintlify_exporter"), status, budget)
	goProcess := registry(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	live := prometheus.Gatherers{goProcess, own}
	vreg := prometheus.NewRegistry()
	vreg.MustRegister(v)
	f := &scrapeFixture{
		live: live, own: own,
		handler: httptest.NewServer(metricshandler.New(metricshandler.Config{
			Live: live, Cached: v, MaxRequests: 40, Instrument: goProcess,
		})),
		slow:   httptest.NewServer(promhttp.HandlerFor(append(live, vreg), promhttp.HandlerOpts{})),
		bodies: map[string][]byte{},
	}
	for enc := range encodings {
		res, err := benchClient.Do(benchRequest(f.handler.URL, enc))
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("%s scrape: status %d, %v", enc, res.StatusCode, err)
		}
		f.bodies[enc] = body
	}
	scrapeFixtures[n] = f
	return f
}

// benchClient reads answers as they come: it asks for gzip by hand and
// does not decompress.
var benchClient = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}

// encodings maps an encoding to its Accept-Encoding header.
var encodings = map[string]string{"plain": "identity", "gzip": "gzip"}

func benchRequest(url, enc string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", acceptText)
	req.Header.Set("Accept-Encoding", encodings[enc])
	return req
}

// serveLoop makes b.N scrapes of url over one loopback connection, reading
// every answer (at least minSize bytes) to its end. B/s counts the bytes
// on the wire.
func serveLoop(b *testing.B, url, enc string, minSize int) {
	b.ReportAllocs()
	b.ResetTimer()
	var n int64
	for range b.N {
		n = scrapeOnce(b, url, enc, minSize)
	}
	b.StopTimer()
	b.SetBytes(n)
}

func scrapeOnce(b *testing.B, url, enc string, minSize int) int64 {
	res, err := benchClient.Do(benchRequest(url, enc))
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || n < int64(minSize) {
		b.Fatalf("status %d, %d bytes, %v", res.StatusCode, n, err)
	}
	return n
}

// ratioBase holds the ns/op of the last BenchmarkServeBytes run, by case.
var ratioBase sync.Map // string -> float64

// bytesServers serve the fixtures' answers from memory, by case.
var bytesServers sync.Map // string -> *httptest.Server

// bytesServer returns a server whose handler writes the full answer of
// the exporter (for gzip, the compressed one) from memory, with the same
// headers.
func bytesServer(b *testing.B, enc string, n int) (*httptest.Server, int) {
	key := enc + "/" + strconv.Itoa(n)
	body := getScrapeFixture(b, n).bodies[enc]
	if s, ok := bytesServers.Load(key); ok {
		return s.(*httptest.Server), len(body)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8; escaping=underscores")
		if enc == "gzip" {
			hdr.Set("Content-Encoding", "gzip")
			hdr.Add("Vary", "Accept-Encoding")
		} else {
			hdr.Set("Content-Length", strconv.Itoa(len(body)))
		}
		_, _ = w.Write(body)
	}))
	bytesServers.Store(key, s)
	return s, len(body)
}

// BenchmarkServeBytes is the floor of a scrape: the same answer as the
// exporter's, written from memory, read over loopback.
func BenchmarkServeBytes(b *testing.B) {
	forCases(b, benchSizes, func(b *testing.B, enc string, n int) {
		s, size := bytesServer(b, enc, n)
		serveLoop(b, s.URL, enc, size)
		ratioBase.Store(enc+"/"+strconv.Itoa(n), float64(b.Elapsed().Nanoseconds())/float64(b.N))
	})
}

// BenchmarkScrape is a scrape through the exporter's handler, over
// loopback. x-serve-bytes is its ratio to BenchmarkServeBytes of the same
// case (measured here, untimed, when BenchmarkServeBytes did not run), and
// ms-over-serve-bytes the difference. The targets: at 20,000
// paths, x-serve-bytes at most 1.5 plain, and at most 1.5 ms over serving
// the same bytes compressed with gzip.
func BenchmarkScrape(b *testing.B) {
	forCases(b, benchSizes, func(b *testing.B, enc string, n int) {
		f := getScrapeFixture(b, n)
		serveLoop(b, f.handler.URL, enc, len(f.bodies[enc])*9/10)
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		base, ok := ratioBase.Load(enc + "/" + strconv.Itoa(n))
		if !ok {
			s, size := bytesServer(b, enc, n)
			start := time.Now()
			for range b.N {
				scrapeOnce(b, s.URL, enc, size)
			}
			base = float64(time.Since(start).Nanoseconds()) / float64(b.N)
		}
		b.ReportMetric(ns/base.(float64), "x-serve-bytes")
		b.ReportMetric((ns-base.(float64))/1e6, "ms-over-serve-bytes")
	})
}

// BenchmarkLivePart is what a scrape adds to writing bytes: gathering and
// encoding the live registry, whole as main registers it ("all"), and by
// part: the Go collector, the process collector, and the exporter's own
// collectors.
func BenchmarkLivePart(b *testing.B) {
	f := getScrapeFixture(b, benchSizes[0])
	parts := []struct {
		name string
		g    prometheus.Gatherer
	}{
		{"all", f.live},
		{"go", registry(collectors.NewGoCollector())},
		{"process", registry(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))},
		{"exporter", f.own},
	}
	for _, p := range parts {
		b.Run("collectors="+p.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf.Reset()
				mfs, err := p.g.Gather()
				if err != nil {
					b.Fatal(err)
				}
				enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
				for _, mf := range mfs {
					if err := enc.Encode(mf); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

func registry(cs ...prometheus.Collector) *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(cs...)
	return r
}

// BenchmarkPromhttp is the idiomatic design, for context: every scrape
// collects the snapshots into const metrics and encodes (and compresses)
// them with promhttp.HandlerFor.
func BenchmarkPromhttp(b *testing.B) {
	forCases(b, benchSizes[1:], func(b *testing.B, enc string, n int) {
		f := getScrapeFixture(b, n)
		serveLoop(b, f.slow.URL, enc, len(f.bodies[enc])/4) // promhttp compresses better
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
