package collector_test

// Refresh benchmarks: the cost of turning the API's pages into a
// served snapshot, against the bare cost of decoding the same pages with
// encoding/json plus one gzip pass over the rendered text, and the memory a
// snapshot of 100,000 paths keeps.
//
//	go test -run '^$' -bench 'Refresh|Memory' -benchmem ./collector/

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// benchSizes are the path counts of the benchmarks, one window each.
var benchSizes = []int{1_000, 10_000, 100_000}

const (
	benchProject  = "bench-docs"
	benchPageSize = client.MaxPageSize
)

// benchDay is the one day of benchmark data; benchNow stands later that day,
// so the 1d window covers exactly the data.
var benchDay = time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)

func benchNow() time.Time { return benchDay.Add(10 * time.Hour) }

var benchWindow = engine.Window{Name: "1d", Days: 1}

var benchUnit = engine.Unit{Source: "visitors", Project: benchProject, Window: benchWindow}

// refreshFixture holds the fake API's answers for every page of one
// project and window, captured once, to be replayed from memory.
type refreshFixture struct {
	paths int
	rng   client.DateRange
	pages [][]byte // page i answers offset i*benchPageSize
}

var (
	refreshFixturesMu sync.Mutex
	refreshFixtures   = map[int]*refreshFixture{}
)

// getRefreshFixture returns the pages of a site with n paths over one day,
// as the fake API writes them. Fixtures are kept for the whole run: -count
// repeats a benchmark without paying for its set-up again.
func getRefreshFixture(tb testing.TB, n int) *refreshFixture {
	tb.Helper()
	refreshFixturesMu.Lock()
	defer refreshFixturesMu.Unlock()
	if f, ok := refreshFixtures[n]; ok {
		return f
	}
	f := newRefreshFixture(tb, n)
	refreshFixtures[n] = f
	return f
}

func newRefreshFixture(tb testing.TB, n int) *refreshFixture {
	tb.Helper()
	srv := mintlifytest.NewUnstartedServer(
		mintlifytest.WithClock(benchNow),
		mintlifytest.WithProject(benchProject, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(n), Paths: n, Days: 1, End: benchDay,
		})),
	)
	defer srv.Close()
	f := &refreshFixture{paths: n, rng: benchWindow.Range(benchNow())}
	for offset := 0; ; offset += benchPageSize {
		target := fmt.Sprintf("/v1/analytics/%s/visitors?dateFrom=%s&dateTo=%s&limit=%d&offset=%d",
			benchProject, f.rng.From, f.rng.To, benchPageSize, offset)
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			tb.Fatalf("fake API answered %d at offset %d: %s", rec.Code, offset, rec.Body)
		}
		f.pages = append(f.pages, rec.Body.Bytes())
		var p struct{ HasMore bool }
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			tb.Fatal(err)
		}
		if !p.HasMore {
			break
		}
	}
	if want := (n + benchPageSize - 1) / benchPageSize; len(f.pages) != want {
		tb.Fatalf("fake API gave %d pages for %d paths, want %d", len(f.pages), n, want)
	}
	return f
}

// RoundTrip answers a visitors request with the captured page of its
// offset: a refresh then costs what the exporter does, not the network.
func (f *refreshFixture) RoundTrip(req *http.Request) (*http.Response, error) {
	offset, err := strconv.Atoi(req.URL.Query().Get("offset"))
	if err != nil || offset%benchPageSize != 0 || offset/benchPageSize >= len(f.pages) {
		return nil, fmt.Errorf("replay: no page for %s", req.URL)
	}
	body := f.pages[offset/benchPageSize]
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// client returns an API client whose requests are answered by f.
func (f *refreshFixture) client(tb testing.TB, hooks client.Hooks) *client.Client {
	tb.Helper()
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := client.New(client.Config{
		BaseURL:    "http://127.0.0.1:1", // never dialled: f answers
		Key:        key,
		HTTPClient: &http.Client{Transport: f},
		Hooks:      hooks,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// refresh is one refresh as the engine makes it with the visitors
// source: walk every page, select the paths, then render and compress
// every family.
func (f *refreshFixture) refresh(tb testing.TB, c *client.Client) (*engine.Result, *exposition.Exposition) {
	src := collector.NewVisitors(c.PathsPage, collector.Options{PageSize: benchPageSize})
	res, err := src.Fetch(context.Background(), benchUnit, f.rng, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return res, renderUnit(src, benchUnit, res)
}

// renderUnit renders one result as a refresh does, headers included,
// without an engine.
func renderUnit(src engine.Source, u engine.Unit, res *engine.Result) *exposition.Exposition {
	x := &exposition.Exposition{}
	for i, f := range src.Families() {
		if i < len(res.Samples) && len(res.Samples[i]) > 0 {
			x.Add(exposition.Header(f.Name, f.Help))
			x.Add(exposition.Series(f.Name, f.Labels, u.Project, u.Window.Name, res.Samples[i]))
		}
	}
	return x
}

// exposed returns the text exposition of one refresh, as scrapes get it.
func exposed(tb testing.TB, x *exposition.Exposition) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := x.WriteText(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// pagePaths is the number of paths a visitors result exports.
func pagePaths(res *engine.Result) int { return len(res.Samples[3]) }

// ratioBase remembers, per size, the ns/op of the last
// BenchmarkRefreshBaseline run, so that BenchmarkRefresh can report its
// ratio to it.
var ratioBase sync.Map // int -> float64

// BenchmarkRefreshBaseline is the floor of a refresh: encoding/json decodes
// the same pages into the same types, and the rendered text is compressed
// once at the exporter's level.
func BenchmarkRefreshBaseline(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			op := refreshBaseline(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				op()
			}
			b.StopTimer()
			ratioBase.Store(n, float64(b.Elapsed().Nanoseconds())/float64(b.N))
		})
	}
}

// refreshBaseline returns one baseline operation at n paths.
func refreshBaseline(tb testing.TB, n int) func() {
	f := getRefreshFixture(tb, n)
	_, x := f.refresh(tb, f.client(tb, client.Hooks{}))
	text := exposed(tb, x)
	return func() {
		var rows []client.PathCounts
		for _, body := range f.pages {
			var p struct {
				Totals   client.Counts       `json:"totals"`
				Visitors []client.PathCounts `json:"visitors"`
				HasMore  bool                `json:"hasMore"`
			}
			if err := json.Unmarshal(body, &p); err != nil {
				tb.Fatal(err)
			}
			rows = append(rows, p.Visitors...)
		}
		zw, _ := gzip.NewWriterLevel(io.Discard, flate.BestSpeed)
		_, _ = zw.Write(text)
		_ = zw.Close()
		if len(rows) != n {
			tb.Fatalf("decoded %d rows, want %d", len(rows), n)
		}
	}
}

// BenchmarkRefresh is one refresh as the engine makes it: the client's
// walk (decoding, validation, duplicate check), the visitors source
// (sanitize, sort, samples) and the engine's rendering and compression. x-baseline is its ratio to BenchmarkRefreshBaseline
// (measured here, untimed, when that did not run).
func BenchmarkRefresh(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			f := getRefreshFixture(b, n)
			c := f.client(b, client.Hooks{})
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				if res, _ := f.refresh(b, c); pagePaths(res) != n {
					b.Fatalf("refresh exports %d paths, want %d", pagePaths(res), n)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*n), "allocs/row")
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			base, ok := ratioBase.Load(n)
			if !ok {
				op := refreshBaseline(b, n)
				start := time.Now()
				for range b.N {
					op()
				}
				base = float64(time.Since(start).Nanoseconds()) / float64(b.N)
			}
			b.ReportMetric(ns/base.(float64), "x-baseline")
		})
	}
}

// memoryChildEnv, when set in a child test process, names the path count
// TestRefreshMemoryChild measures.
const memoryChildEnv = "MINTLIFY_BENCH_MEMORY_PATHS"

// BenchmarkMemory measures the memory of the engine with the visitors source at 1 window
// in a fresh child process, so that nothing else in this one counts: the
// Go heap in use after two refreshes and a GC (the second refresh runs while
// the first snapshot is served, as in steady state), and the process's peak
// and final resident set, from which the resident set before the first
// refresh (runtime, test binary, replayed pages) is also reported; at 100k
// paths also with GOMEMLIMIT=100MiB, the soft limit that keeps the peak
// near the target (without it, Go lets the heap grow to twice what is live,
// and both snapshots are live while the second one is built). Each
// op is a child process; -benchtime=1x is enough. Set
// MINTLIFY_BENCH_HEAP_PROFILE=/tmp/heap.out to get the child's heap profile.
func BenchmarkMemory(b *testing.B) {
	type memCase struct {
		paths int
		limit string // GOMEMLIMIT of the child
	}
	cases := []memCase{{benchSizes[0], "off"}, {benchSizes[1], "off"}, {benchSizes[2], "off"}, {benchSizes[2], "100MiB"}}
	for _, c := range cases {
		b.Run(fmt.Sprintf("paths=%d/gomemlimit=%s", c.paths, c.limit), func(b *testing.B) {
			var m map[string]float64
			for range b.N {
				m = runMemoryChild(b, c.paths, c.limit)
			}
			for _, unit := range slices.Sorted(func(yield func(string) bool) {
				for k := range m {
					if !yield(k) {
						return
					}
				}
			}) {
				b.ReportMetric(m[unit], unit)
			}
		})
	}
}

func runMemoryChild(b *testing.B, n int, limit string) map[string]float64 {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRefreshMemoryChild$", "-test.bench=^$", "-test.count=1", "-test.v")
	// The last value of a repeated variable wins.
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+strconv.Itoa(n), "GOMEMLIMIT="+limit)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("memory child: %v\n%s", err, out)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[0] != "MEMORY" {
			continue
		}
		v, err := strconv.ParseFloat(fields[2], 64)
		if err != nil {
			b.Fatalf("memory child: bad line %q", sc.Text())
		}
		m[fields[1]] = v
	}
	if len(m) == 0 {
		b.Fatalf("memory child reported nothing:\n%s", out)
	}
	return m
}

// TestRefreshMemoryChild is the child process of BenchmarkMemory; it is
// skipped unless BenchmarkMemory started it.
func TestRefreshMemoryChild(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(memoryChildEnv))
	if err != nil {
		t.Skip("run by BenchmarkMemory only")
	}
	f := newRefreshFixture(t, n)
	debug.FreeOSMemory() // the fake's data is garbage now
	baseRSS := procStatusMiB(t, "VmRSS")
	// Reset the peak resident set (VmHWM) to the current one.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("cannot reset the peak resident set: %v", err)
	}

	var (
		mu  sync.Mutex
		now = benchNow()
	)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	refreshed := make(chan struct{}, 2)
	src := collector.NewVisitors(f.client(t, client.Hooks{}).PathsPage, collector.Options{PageSize: benchPageSize, MaxPages: 1000})
	v, err := engine.New(engine.Config{
		Sources: []engine.Source{src}, Projects: []string{benchProject}, Windows: []engine.Window{benchWindow},
		MinInterval: 15 * time.Minute, Budget: budget.New(1_000_000, clock), Status: health.NewStatus(), Now: clock,
		OnChange: func() { refreshed <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// walked waits until the window's page walk completed after since (the
	// window splits into site totals and the walk: each refresh is a change).
	walked := func(since time.Time) time.Time {
		for {
			<-refreshed
			for _, u := range v.States() {
				if u.Part == health.PartPages && u.Completed.After(since) {
					return u.Completed
				}
			}
		}
	}
	v.Start()
	first := walked(time.Time{})
	mu.Lock()
	now = now.Add(16 * time.Minute) // the data is now due
	mu.Unlock()
	v.Touch()
	walked(first)
	expo := v.Exposition()
	if got := strings.Count(string(exposed(t, expo)), "mintlify_page_visitors_deduplicated{"); got != n {
		t.Fatalf("the exposition has %d paths, want %d", got, n)
	}

	runtime.GC()
	runtime.GC()
	if path := os.Getenv(heapProfileEnv); path != "" {
		writeHeapProfile(t, path)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	const mib = 1 << 20
	fmt.Printf("MEMORY MiB-heap-inuse %.1f\n", float64(ms.HeapInuse)/mib)
	fmt.Printf("MEMORY MiB-text %.1f\n", float64(expo.TextLen())/mib)
	fmt.Printf("MEMORY MiB-rss-base %.1f\n", baseRSS)
	fmt.Printf("MEMORY MiB-rss-peak %.1f\n", procStatusMiB(t, "VmHWM"))
	fmt.Printf("MEMORY MiB-rss-end %.1f\n", procStatusMiB(t, "VmRSS"))
	runtime.KeepAlive(f)
}

// heapProfileEnv, when set for BenchmarkMemory, names a file where the
// child writes a heap profile after the second refresh (go tool pprof
// -sample_index=inuse_space).
const heapProfileEnv = "MINTLIFY_BENCH_HEAP_PROFILE"

func writeHeapProfile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		t.Fatal(err)
	}
}

// procStatusMiB reads a kB field of /proc/self/status, in MiB.
func procStatusMiB(t *testing.T, field string) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if name, rest, ok := strings.Cut(line, ":"); ok && name == field {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
