package metricshandler_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
	"github.com/mintlify-exporter/mintlify_exporter/metricshandler"
)

// The fake's data ends on dataDay; the clock stands later that day and
// never moves, so no snapshot falls due during a test.
var dataDay = time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return dataDay.Add(10 * time.Hour) }

// Accept headers.
const (
	acceptText     = "text/plain;version=0.0.4"
	acceptProto    = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"
	acceptOpenMetr = "application/openmetrics-text;version=1.0.0"
	// Prometheus 2.x's default scrape Accept header.
	acceptProm2 = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
	// Prometheus 3.x's default scrape Accept header.
	acceptProm3 = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"
)

// The visitors families: rendered once per refresh, never in the live part.
var visitorsFamilies = []string{
	"mintlify_visitors", "mintlify_visitors_deduplicated",
	"mintlify_page_visitors", "mintlify_page_visitors_deduplicated",
	"mintlify_visitors_paths", "mintlify_visitors_paths_exported",
}

// Paths of project "docs" that stress label escaping. The markers are
// replaced on the wire by paths with invalid UTF-8 (see invalidUTF8).
var trickyPaths = []string{
	`/say-"hello"`,
	`/back\slash`,
	`/literal\n-not-a-newline`,
	"/new\nline",
	"/tab\tand\rreturn",
	"/unicode/文档/é/😀",
	`/"\` + "\n" + `"all-at-once\\`,
	"/mark-ff",
	"/mark-fe",
}

// invalidUTF8 is what the markers become on the wire: two paths that are
// equal once sanitized, so the exporter must merge them (first kept).
var invalidUTF8 = map[string]string{
	"/mark-ff": "/bad\xffpath",
	"/mark-fe": "/bad\xfepath",
}

const sanitizedBad = "/bad\uFFFDpath"

type envOptions struct {
	// goProcess adds the Go and process collectors and instruments the
	// handler, as main does; their values change between scrapes.
	goProcess   bool
	maxRequests int
	// fail makes every visitors request fail with 500.
	fail bool
	// latency delays every answer of the fake.
	latency time.Duration
	// wrap replaces the visitors collector given to the handler.
	wrap func(*engine.Engine) metricshandler.Cached
	// noSnapshots skips the first refresh done before the test.
	noSnapshots bool
}

// env is a fake API, a real client and visitors collector pointed at it,
// the live registry, and the handler under test.
type env struct {
	srv      *mintlifytest.Server
	visitors *engine.Engine
	live     *prometheus.Registry
	h        http.Handler
	// slow is the idiomatic handler over the same collectors.
	slow http.Handler
}

var windows = []engine.Window{{Name: "1d", Days: 1}, {Name: "7d", Days: 7}}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	docs := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 80, Days: 7, End: dataDay})
	for i, p := range trickyPaths {
		// /mark-ff ranks above /mark-fe, so its counts are kept.
		docs.Set(dataDay, p, int64(100-i), int64(10+i), int64(105-i))
	}
	opts := []mintlifytest.Option{
		mintlifytest.WithProject("docs", docs),
		mintlifytest.WithProject("api", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 2, Paths: 30, Days: 7, End: dataDay})),
	}
	if o.latency > 0 {
		opts = append(opts, mintlifytest.WithLatency(o.latency))
	}
	rig := apitest.NewRig(t, fixedNow(), opts...)
	srv := rig.Fake
	if o.fail { // added first: only the first matching fault fires
		srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Status: http.StatusInternalServerError})
	}
	srv.AddFault(mintlifytest.Fault{
		Endpoint: mintlifytest.EndpointVisitors, Project: "docs", Offset: mintlifytest.AnyOffset,
		Mutate: func(body map[string]any) {
			rows, _ := body["visitors"].([]any)
			for _, r := range rows {
				row, _ := r.(map[string]any)
				if p, ok := row["path"].(string); ok && invalidUTF8[p] != "" {
					row["path"] = json.RawMessage(`"` + invalidUTF8[p] + `"`)
				}
			}
		},
	})

	status := health.NewStatus()
	live := prometheus.NewRegistry()
	observeAPI := health.ObserveAPI(live)
	budget := rig.Budget(1000)
	c := rig.Client(client.Config{Timeout: 10 * time.Second,
		Retry: client.RetryPolicy{MaxAttempts: 1}, Hooks: client.Hooks{Allow: budget.Allow, Observe: observeAPI}})
	src := collector.NewVisitors(c.PathsPage, collector.Options{PageSize: 25, MaxPages: 100})
	v := rig.Engine(engine.Config{
		Sources: []engine.Source{src}, Projects: []string{"docs", "api"}, Windows: windows,
		MinInterval: 15 * time.Minute, Budget: budget, Status: status,
	})

	live.MustRegister(versioncollector.NewCollector("mintlify_exporter"), status, budget)
	var instrument prometheus.Registerer
	if o.goProcess {
		live.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		instrument = live
	}
	if !o.noSnapshots {
		rig.Refresh(v)
		if !v.Ready() {
			t.Fatalf("no snapshots after the first refresh: %+v", v.States())
		}
	}
	var hv metricshandler.Cached = v
	if o.wrap != nil {
		hv = o.wrap(v)
	}
	vreg := prometheus.NewRegistry()
	vreg.MustRegister(v)
	return &env{
		srv: srv, visitors: v, live: live,
		h: metricshandler.New(metricshandler.Config{
			Live: live, Cached: hv, MaxRequests: o.maxRequests, Instrument: instrument,
		}),
		slow: promhttp.HandlerFor(prometheus.Gatherers{live, vreg}, promhttp.HandlerOpts{}),
	}
}

// scrape sends GET /metrics with the given headers (name, value pairs).
func scrape(h http.Handler, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func parseProto(t *testing.T, b []byte) map[string]*dto.MetricFamily {
	t.Helper()
	dec := expfmt.NewDecoder(bytes.NewReader(b), expfmt.NewFormat(expfmt.TypeProtoDelim))
	out := map[string]*dto.MetricFamily{}
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("protobuf exposition does not parse: %v", err)
		}
		if out[mf.GetName()] != nil {
			t.Fatalf("family %s sent twice", mf.GetName())
		}
		out[mf.GetName()] = mf
	}
}

// canonical renders families in a comparable form: labels and series
// sorted, timestamps and created timestamps (absent from the text format)
// dropped.
func canonical(t *testing.T, mfs map[string]*dto.MetricFamily) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, mf := range mfs {
		for _, m := range mf.Metric {
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
			m.TimestampMs = nil
			if m.Counter != nil {
				m.Counter.CreatedTimestamp = nil
			}
			if h := m.Histogram; h != nil {
				h.CreatedTimestamp = nil
				// The text parser keeps the +Inf bucket; protobuf omits it.
				h.Bucket = slices.DeleteFunc(h.Bucket, func(b *dto.Bucket) bool { return b.GetUpperBound() > 1e308 })
			}
		}
		slices.SortFunc(mf.Metric, func(a, b *dto.Metric) int { return strings.Compare(labelKey(a), labelKey(b)) })
		var buf bytes.Buffer
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			t.Fatalf("family %s: %v", name, err)
		}
		out[name] = buf.String()
	}
	return out
}

// labelKey identifies a series by its sorted labels.
func labelKey(m *dto.Metric) string {
	var b strings.Builder
	for _, l := range m.Label {
		fmt.Fprintf(&b, "%s=%q,", l.GetName(), l.GetValue())
	}
	return b.String()
}

// sameFamilies fails unless got and want hold the same families.
func sameFamilies(t *testing.T, what string, got, want map[string]*dto.MetricFamily) {
	t.Helper()
	g, w := canonical(t, got), canonical(t, want)
	for _, name := range slices.Sorted(maps.Keys(w)) {
		if g[name] == "" {
			t.Errorf("%s: family %s missing", what, name)
		} else if g[name] != w[name] {
			t.Errorf("%s: family %s differs:\n got %.2000s\nwant %.2000s", what, name, g[name], w[name])
		}
	}
	for name := range g {
		if w[name] == "" {
			t.Errorf("%s: unexpected family %s", what, name)
		}
	}
}

// TestFastPathMatchesSlowPath: text and gzip from pre-rendered bytes carry
// exactly the families client_golang serves as protobuf and OpenMetrics.
func TestFastPathMatchesSlowPath(t *testing.T) {
	e := newEnv(t, envOptions{})

	plain := scrape(e.h, "Accept", acceptText)
	gz := scrape(e.h, "Accept", acceptText, "Accept-Encoding", "gzip")
	pb := scrape(e.h, "Accept", acceptProto)
	for name, r := range map[string]*httptest.ResponseRecorder{"plain": plain, "gzip": gz, "protobuf": pb} {
		if r.Code != http.StatusOK {
			t.Fatalf("%s scrape: status %d: %s", name, r.Code, r.Body)
		}
	}
	promtest.CheckBlocks(t, plain.Body.Bytes())
	fast := promtest.ParseText(t, plain.Body.Bytes())
	for _, f := range visitorsFamilies {
		if fast[f] == nil {
			t.Errorf("fast path lacks %s", f)
		}
	}
	sameFamilies(t, "text vs protobuf", fast, parseProto(t, pb.Body.Bytes()))

	unzipped := promtest.GunzipOne(t, gz.Body.Bytes())
	if !bytes.Equal(unzipped, plain.Body.Bytes()) {
		t.Errorf("gzip answer differs from the plain one once decompressed (%d vs %d bytes)", len(unzipped), plain.Body.Len())
	}

	// The idiomatic handler over the same collectors, as a second witness.
	sameFamilies(t, "text vs promhttp", fast, promtest.ParseText(t, scrape(e.slow, "Accept", acceptText).Body.Bytes()))

	// A client asking only for OpenMetrics is served by client_golang. It
	// may answer OpenMetrics, or the text format when OpenMetrics is not
	// enabled; the visitors families must be the same either way.
	om := scrape(e.h, "Accept", acceptOpenMetr)
	if om.Code != http.StatusOK {
		t.Fatalf("OpenMetrics scrape: status %d", om.Code)
	}
	omBody := om.Body.Bytes()
	if strings.HasPrefix(om.Header().Get("Content-Type"), "application/openmetrics-text") {
		if !bytes.HasSuffix(omBody, []byte("# EOF\n")) {
			t.Error("OpenMetrics answer does not end with # EOF")
		}
		omBody = visitorsLines(omBody)
	}
	omFams := promtest.ParseText(t, omBody)
	for _, f := range visitorsFamilies {
		sameFamilies(t, "text vs OpenMetrics", map[string]*dto.MetricFamily{f: omFams[f]}, map[string]*dto.MetricFamily{f: fast[f]})
	}
}

// visitorsLines keeps the lines of the visitors families of an OpenMetrics
// exposition, which for gauges are valid text format.
func visitorsLines(b []byte) []byte {
	var out []byte
	for line := range bytes.Lines(b) {
		s := string(line)
		if strings.HasPrefix(s, "# HELP ") || strings.HasPrefix(s, "# TYPE ") {
			s = s[len("# HELP "):]
		}
		name := s[:max(0, strings.IndexAny(s, "{ "))]
		if slices.Contains(visitorsFamilies, name) {
			out = append(out, line...)
		}
	}
	return out
}

// TestPrometheusAcceptHeadersGetFastPath: Prometheus prefers OpenMetrics but
// accepts the text format, which is what the slow path would answer anyway
// (OpenMetrics is not enabled): its scrapes must get the pre-rendered bytes.
func TestPrometheusAcceptHeadersGetFastPath(t *testing.T) {
	e := newEnv(t, envOptions{})
	want := scrape(e.h, "Accept", acceptText)
	// The fast path writes the visitors families first, client_golang
	// sorts all families by name: equal bytes prove the fast path.
	if bytes.Equal(want.Body.Bytes(), scrape(e.slow, "Accept", acceptText).Body.Bytes()) {
		t.Fatal("test set-up: the fast and slow paths give the same bytes")
	}
	for name, accept := range map[string]string{"prometheus 2": acceptProm2, "prometheus 3": acceptProm3, "none": ""} {
		t.Run(name, func(t *testing.T) {
			got := scrape(e.h, "Accept", accept, "Accept-Encoding", "gzip")
			if ct := got.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
				t.Fatalf("Content-Type %q, want the text format", ct)
			}
			if got.Header().Get("Content-Encoding") != "gzip" {
				t.Fatal("not gzip-encoded")
			}
			if body := promtest.GunzipOne(t, got.Body.Bytes()); !bytes.Equal(body, want.Body.Bytes()) {
				t.Errorf("answer is not the pre-rendered exposition (slow path taken?): %d bytes vs %d", len(body), want.Body.Len())
			}
		})
	}
}

// TestGzipOverHTTP checks the bytes on the wire through a real server: one
// gzip member, the right headers, and the same text as without gzip.
func TestGzipOverHTTP(t *testing.T) {
	e := newEnv(t, envOptions{})
	ts := httptest.NewServer(e.h)
	t.Cleanup(ts.Close)
	get := func(enc string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
		req.Header.Set("Accept", acceptText)
		req.Header.Set("Accept-Encoding", enc) // set by hand: no transparent decompression
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	read := func(res *http.Response) []byte {
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	gzRes := get("gzip")
	gz := read(gzRes)
	plainRes := get("identity")
	plain := read(plainRes)
	if got := gzRes.Header.Get("Content-Encoding"); got != "gzip" {
		t.Errorf("Content-Encoding %q, want gzip", got)
	}
	if !slices.Contains(gzRes.Header.Values("Vary"), "Accept-Encoding") {
		t.Errorf("Vary %q lacks Accept-Encoding", gzRes.Header.Values("Vary"))
	}
	// The format depends on Accept too, for every answer.
	for _, res := range []*http.Response{gzRes, plainRes} {
		if !slices.Contains(res.Header.Values("Vary"), "Accept") {
			t.Errorf("Vary %q lacks Accept", res.Header.Values("Vary"))
		}
	}
	if gzRes.ContentLength >= 0 && gzRes.ContentLength != int64(len(gz)) {
		t.Errorf("gzip Content-Length %d, body %d bytes", gzRes.ContentLength, len(gz))
	}
	if plainRes.ContentLength != int64(len(plain)) {
		t.Errorf("plain Content-Length %d, body %d bytes", plainRes.ContentLength, len(plain))
	}
	if got := promtest.GunzipOne(t, gz); !bytes.Equal(got, plain) {
		t.Errorf("gzip body decompresses to %d bytes, plain body is %d", len(got), len(plain))
	}
	if len(gz) >= len(plain)/3 {
		t.Errorf("gzip body %d bytes for %d of text: not compressed", len(gz), len(plain))
	}
}

// TestAcceptEncoding: gzip only when accepted with a non-zero quality.
func TestAcceptEncoding(t *testing.T) {
	e := newEnv(t, envOptions{})
	plain := scrape(e.h, "Accept", acceptText).Body.Bytes()
	for _, tc := range []struct {
		header string
		gzip   bool
	}{
		{"", false},
		{"identity", false},
		{"gzip", true},
		{"GZIP", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0.1", true},
		{"deflate, br;q=1.0, gzip;q=0.5", true},
		{"deflate, br", false},
	} {
		t.Run(tc.header, func(t *testing.T) {
			r := scrape(e.h, "Accept", acceptText, "Accept-Encoding", tc.header)
			body := r.Body.Bytes()
			if got := r.Header().Get("Content-Encoding") == "gzip"; got != tc.gzip {
				t.Fatalf("gzip encoded: %v, want %v", got, tc.gzip)
			}
			if tc.gzip {
				body = promtest.GunzipOne(t, body)
			} else if cl := r.Header().Get("Content-Length"); cl != fmt.Sprint(len(body)) {
				t.Errorf("Content-Length %q for %d bytes", cl, len(body))
			}
			if !bytes.Equal(body, plain) {
				t.Errorf("body differs from the plain answer")
			}
		})
	}
}

// TestContentType: the fast path announces the format the slow path would.
func TestContentType(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, accept := range []string{"", acceptText, "text/plain", "*/*"} {
		fast := scrape(e.h, "Accept", accept)
		slow := scrape(e.slow, "Accept", accept)
		if got, want := fast.Header().Get("Content-Type"), slow.Header().Get("Content-Type"); got != want {
			t.Errorf("Accept %q: Content-Type %q, promhttp says %q", accept, got, want)
		}
		if cl := fast.Header().Get("Content-Length"); cl != fmt.Sprint(fast.Body.Len()) {
			t.Errorf("Accept %q: Content-Length %q for %d bytes", accept, cl, fast.Body.Len())
		}
	}
	if ct := scrape(e.h, "Accept", acceptProto).Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.google.protobuf") {
		t.Errorf("protobuf Content-Type %q", ct)
	}
}

// TestPromtoolCheckMetrics runs promtool on the fast path's answer with
// every live collector main registers.
func TestPromtoolCheckMetrics(t *testing.T) {
	const promtool = "/usr/bin/promtool"
	if _, err := os.Stat(promtool); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing: install the Debian package prometheus", promtool)
		}
		t.Skipf("%s missing: install the Debian package prometheus", promtool)
	}
	e := newEnv(t, envOptions{goProcess: true})
	for _, enc := range []string{"identity", "gzip"} {
		r := scrape(e.h, "Accept", acceptProm3, "Accept-Encoding", enc)
		body := r.Body.Bytes()
		if enc == "gzip" {
			body = promtest.GunzipOne(t, body)
		}
		promtest.CheckBlocks(t, body)
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
			t.Errorf("promtool check metrics (%s): %v\n%s", enc, err, out)
		}
	}
}

// TestVisitorsCollectorLint lints the slow path's visitors collector.
func TestVisitorsCollectorLint(t *testing.T) {
	e := newEnv(t, envOptions{})
	problems, err := testutil.CollectAndLint(e.visitors)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestLabelEscapingRoundTrips: the parsed path labels are the API's paths,
// sanitized, with their counts; three series per path.
func TestLabelEscapingRoundTrips(t *testing.T) {
	e := newEnv(t, envOptions{})
	fams := promtest.ParseText(t, scrape(e.h, "Accept", acceptText).Body.Bytes())
	for _, w := range windows {
		rng := w.Range(fixedNow())
		_, rows := e.srv.Visitors("docs", rng.From.Time(), rng.To.Time())
		want := map[string]float64{} // path -> deduplicated total
		for _, r := range rows {
			p := r.Path
			if bad, ok := invalidUTF8[p]; ok {
				p = strings.ToValidUTF8(bad, "\uFFFD")
			}
			if _, dup := want[p]; !dup {
				want[p] = float64(r.Total)
			}
		}
		if want[sanitizedBad] != 105-7 {
			t.Fatalf("test set-up: %q total %v, want the counts of /mark-ff", sanitizedBad, want[sanitizedBad])
		}
		got := map[string]float64{}
		for _, m := range fams["mintlify_page_visitors_deduplicated"].GetMetric() {
			l := promtest.Labels(m)
			if l["project"] == "docs" && l["window"] == w.Name {
				if _, dup := got[l["path"]]; dup {
					t.Errorf("%s: path %q exported twice", w.Name, l["path"])
				}
				got[l["path"]] = m.GetGauge().GetValue()
			}
		}
		if !maps.Equal(got, want) {
			for p := range want {
				if _, ok := got[p]; !ok {
					t.Errorf("%s: path %q missing", w.Name, p)
				}
			}
			for p, v := range got {
				if wv, ok := want[p]; !ok || wv != v {
					t.Errorf("%s: path %q = %v, want %v (present: %v)", w.Name, p, v, wv, ok)
				}
			}
		}
		for _, p := range trickyPaths[:7] {
			if _, ok := got[p]; !ok {
				t.Errorf("%s: tricky path %q did not round-trip", w.Name, p)
			}
		}
		n := 0
		for _, m := range fams["mintlify_page_visitors"].GetMetric() {
			if l := promtest.Labels(m); l["project"] == "docs" && l["window"] == w.Name {
				n++
			}
		}
		if n != 2*len(want) {
			t.Errorf("%s: %d mintlify_page_visitors series for %d paths, want 2 each", w.Name, n, len(want))
		}
	}
}

// TestBeforeFirstSnapshot: when the first refresh failed, both paths serve
// the live part only, and gzip is still one valid member.
func TestBeforeFirstSnapshot(t *testing.T) {
	// Every first refresh fails: the scrapes do not wait (every unit has
	// had its attempt), serve no data, and mintlify_up says 0.
	e := newEnv(t, envOptions{fail: true})
	plain := scrape(e.h, "Accept", acceptText)
	gz := scrape(e.h, "Accept", acceptText, "Accept-Encoding", "gzip")
	fast := promtest.ParseText(t, plain.Body.Bytes())
	for _, f := range visitorsFamilies {
		if fast[f] != nil {
			t.Errorf("%s served without a snapshot", f)
		}
	}
	for _, m := range fast["mintlify_up"].GetMetric() {
		if m.GetGauge().GetValue() != 0 {
			t.Errorf("mintlify_up %v = %v after a failed refresh", promtest.Labels(m), m.GetGauge().GetValue())
		}
	}
	if len(fast["mintlify_up"].GetMetric()) != 2 {
		t.Errorf("mintlify_up has %d series, want one per project", len(fast["mintlify_up"].GetMetric()))
	}
	if !bytes.Equal(promtest.GunzipOne(t, gz.Body.Bytes()), plain.Body.Bytes()) {
		t.Error("gzip answer differs from the plain one")
	}
	sameFamilies(t, "text vs protobuf", fast, parseProto(t, scrape(e.h, "Accept", acceptProto).Body.Bytes()))
}

// gatedVisitors is the real visitors collector whose Touch reports that a
// scrape reached it and then blocks until released.
type gatedVisitors struct {
	*engine.Engine
	entered chan struct{}
	release chan struct{}
}

func (g *gatedVisitors) Touch() {
	g.entered <- struct{}{}
	<-g.release
}

func gate(buffer int) (*gatedVisitors, func(*engine.Engine) metricshandler.Cached) {
	g := &gatedVisitors{entered: make(chan struct{}, buffer), release: make(chan struct{})}
	return g, func(v *engine.Engine) metricshandler.Cached { g.Engine = v; return g }
}

// TestMaxRequests: with --web.max-requests=2 and two scrapes in flight, a
// third is answered 503 at once, without waiting for snapshots.
func TestMaxRequests(t *testing.T) {
	g, wrap := gate(3)
	e := newEnv(t, envOptions{maxRequests: 2, wrap: wrap})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() { codes[i] = scrape(e.h, "Accept", acceptText).Code })
	}
	<-g.entered
	<-g.entered
	third := scrape(e.h, "Accept", acceptText)
	if third.Code != http.StatusServiceUnavailable {
		t.Errorf("third concurrent scrape: status %d, want 503", third.Code)
	}
	select {
	case <-g.entered:
		t.Error("the refused scrape reached the collector")
	default:
	}
	close(g.release)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("scrape %d in flight: status %d, want 200", i, c)
		}
	}
	// The slots are free again.
	if r := scrape(e.h, "Accept", acceptText); r.Code != http.StatusOK {
		t.Errorf("scrape after the others ended: status %d", r.Code)
	}
}

// TestFirstScrapeNeverWaits: before any data (the engine never gets any
// here), the first scrape answers with the live part only and does not use
// the time it announces: one announcing 600 s is answered long before. A
// handler that waits for data until shortly before the announced timeout
// fails; how fast the machine is does not matter (the 2 minutes only stop a
// hung test).
func TestFirstScrapeNeverWaits(t *testing.T) {
	e := newEnv(t, envOptions{latency: time.Minute, noSnapshots: true})
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		done <- scrape(e.h, "Accept", acceptText, "X-Prometheus-Scrape-Timeout-Seconds", "600")
	}()
	var r *httptest.ResponseRecorder
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the first scrape, announcing a 600 s timeout, waits for data that never comes")
	}
	if r.Code != http.StatusOK {
		t.Fatalf("status %d", r.Code)
	}
	if fams := promtest.ParseText(t, r.Body.Bytes()); fams["mintlify_up"] == nil {
		t.Error("live part missing")
	}
}

// TestNoVisitors: without a visitors collector the handler serves the live
// part on both paths.
func TestNoVisitors(t *testing.T) {
	live := prometheus.NewRegistry()
	live.MustRegister(versioncollector.NewCollector("mintlify_exporter"))
	h := metricshandler.New(metricshandler.Config{Live: live})
	plain := scrape(h, "Accept", acceptText)
	fams := promtest.ParseText(t, plain.Body.Bytes())
	if len(fams) != 1 || fams["mintlify_exporter_build_info"] == nil {
		t.Errorf("families %v, want the build info only", slices.Sorted(maps.Keys(fams)))
	}
	if !bytes.Equal(promtest.GunzipOne(t, scrape(h, "Accept", acceptText, "Accept-Encoding", "gzip").Body.Bytes()), plain.Body.Bytes()) {
		t.Error("gzip answer differs from the plain one")
	}
	sameFamilies(t, "text vs protobuf", fams, parseProto(t, scrape(h, "Accept", acceptProto).Body.Bytes()))
}

// waitReady waits, up to a minute, until the engine's worker sleeps until
// clk moves, and checks it is ready.
func waitReady(t testing.TB, v *engine.Engine, clk *mintlifytest.Clock) {
	t.Helper()
	if !clk.Settle(1, time.Minute) || !v.Ready() {
		t.Fatalf("not ready after a minute: %+v", v.States())
	}
}

// brokenPipe is a ResponseWriter whose client has gone away: every write
// fails.
type brokenPipe struct{ hdr http.Header }

func (b *brokenPipe) Header() http.Header { return b.hdr }
func (b *brokenPipe) WriteHeader(int)     {}
func (b *brokenPipe) Write([]byte) (int, error) {
	return 0, fmt.Errorf("write tcp 127.0.0.1:9863->127.0.0.1:40000: %w", syscall.EPIPE)
}

// TestAbortedScrapeLogsOnce: a scrape whose client goes away logs one debug
// line, not one error per metric family, on both paths.
func TestAbortedScrapeLogsOnce(t *testing.T) {
	live := prometheus.NewRegistry()
	live.MustRegister(versioncollector.NewCollector("mintlify_exporter"),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var logs bytes.Buffer
	h := metricshandler.New(metricshandler.Config{Live: live, Logger: log.NewLogfmtLogger(&logs)})
	for _, accept := range []string{"text/plain;version=0.0.4", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
		"application/openmetrics-text;version=1.0.0"} {
		logs.Reset()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Accept", accept)
		h.ServeHTTP(&brokenPipe{hdr: http.Header{}}, req)
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if len(lines) > 1 || strings.Contains(logs.String(), "level=error") {
			t.Errorf("Accept %s: an aborted scrape logged %d lines, want at most one at debug:\n%s", accept, len(lines), logs.String())
		}
	}
}
