package exporter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// streamRig is an S3 fake with a writer's objects in it.
type streamRig struct {
	s3    *mintlifytest.S3
	truth mintlifytest.StreamTruth
}

func newStreamRig(t *testing.T) *streamRig {
	t.Helper()
	s3 := mintlifytest.NewS3("events")
	t.Cleanup(s3.Close)
	w := mintlifytest.NewStreamWriter(s3, "p/", 3)
	if err := w.Write(context.Background(), mintlifytest.StreamOptions{Events: 400, Subdomains: []string{"docs"}, Start: time.Now().Add(-time.Hour),
		Every: time.Second, Faults: mintlifytest.StreamFaults{Duplicates: 2, Malformed: 1}}); err != nil {
		t.Fatal(err)
	}
	return &streamRig{s3: s3, truth: w.Expect()}
}

// start runs a stream-only exporter on the rig with cache and logs.
func (r *streamRig) start(t *testing.T, cache string, logs *bytes.Buffer) *exporter.Exporter {
	t.Helper()
	x, err := exporter.New(exporter.Config{RequestsPerHour: 90, CacheFile: cache, Logger: log.NewLogfmtLogger(logs),
		Stream: &exporter.StreamConfig{Bucket: "events", Prefix: "p/", Endpoint: r.s3.URL(), Region: "us-east-1",
			AccessKeyID: "AKIDTEST", SecretAccessKey: "not-a-secret", PollInterval: time.Minute, LookBack: 2 * time.Hour,
			Projects: map[string]string{"docs": "p1"}, MaxPaths: 100, TopReferrers: 10}})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// metric waits until the exporter serves series k, and returns its value.
func metric(t *testing.T, x *exporter.Exporter, k string) float64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second) // a bound, not a timing assertion
	for {
		_, body := get(t, x.Handler(), "/metrics")
		for name, mf := range promtest.ParseText(t, []byte(body)) {
			for _, m := range mf.GetMetric() {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				if name+"{"+strings.Join(labels, ",")+"}" == k {
					if m.Counter != nil {
						return m.GetCounter().GetValue()
					}
					return m.GetGauge().GetValue()
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not served", k)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamOnlyExporter: a bucket alone (no key, no project) is read;
// mintlify_up{source="stream"} and the landing page follow its poll; Close
// saves the stream's snapshot in the cache file, a restart restores it
// without counting anything twice, and a cache file whose stream section
// is corrupt is ignored with one warning.
func TestStreamOnlyExporter(t *testing.T) {
	r := newStreamRig(t)
	cache := filepath.Join(t.TempDir(), "state.json")
	var logs bytes.Buffer
	x := r.start(t, cache, &logs)
	waitObjects := func(x *exporter.Exporter) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for metric(t, x, "mintlify_stream_objects_read_total{}") != float64(r.truth.Objects) {
			if time.Now().After(deadline) {
				t.Fatalf("objects read: %v, want %d", metric(t, x, "mintlify_stream_objects_read_total{}"), r.truth.Objects)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitObjects(x)
	if up := metric(t, x, `mintlify_up{project="p1",source="stream"}`); up != 1 {
		t.Errorf("mintlify_up of the stream = %v, want 1", up)
	}
	_, page := get(t, x.Handler(), "/")
	for _, want := range []string{"<h2>Event stream</h2>", "<td>events</td>", "<td>p/</td>", "malformed_line: 1", "<td>2</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the landing page lacks %q", want)
		}
	}
	x.Close()
	f, err := statefile.Read(cache)
	if err != nil || len(f.Stream) == 0 || len(f.Units) != 0 {
		t.Fatalf("cache file after Close: stream %d bytes, %d units, err %v; want the stream's snapshot alone", len(f.Stream), len(f.Units), err)
	}

	logs.Reset()
	x = r.start(t, cache, &logs)
	waitObjects(x)
	if got := metric(t, x, `mintlify_stream_duplicates_dropped_total{}`); got != float64(r.truth.Duplicates) {
		t.Errorf("after a restart: %v duplicates dropped, want %d (nothing counted twice)", got, r.truth.Duplicates)
	}
	if !strings.Contains(logs.String(), "restored the event stream") {
		t.Errorf("no restore logged:\n%s", logs.String())
	}
	x.Close()

	f.Stream = json.RawMessage(`{"version":999}`)
	if err := statefile.Write(cache, f); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	x = r.start(t, cache, &logs)
	defer x.Close()
	waitObjects(x)
	if n := strings.Count(logs.String(), "ignoring the event stream's section"); n != 1 {
		t.Errorf("%d warnings about the bad stream section, want 1:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "not-a-secret") {
		t.Error("a log line holds the secret access key")
	}
}

// TestStreamDownKeepsServing: credentials the store refuses turn
// mintlify_up{source="stream"} to 0 and show the error, naming the flag,
// on the landing page.
func TestStreamDownKeepsServing(t *testing.T) {
	r := newStreamRig(t)
	r.s3.SetAccessKey("AKIDOTHER")
	var logs bytes.Buffer
	x := r.start(t, "", &logs)
	defer x.Close()
	deadline := time.Now().Add(20 * time.Second)
	for metric(t, x, `mintlify_up{project="p1",source="stream"}`) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("mintlify_up of the stream stays 1 with refused credentials")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, page := get(t, x.Handler(), "/")
	if !strings.Contains(page, "access denied") || !strings.Contains(page, "--stream.s3.bucket=events") {
		t.Errorf("the landing page does not show the stream's error naming the flag")
	}
}

// TestStreamReplacesRESTSources: for a project the stream maps, the REST
// views, feedback and searches units are not made and the fake API reads
// none of their requests; an unmapped project keeps them, and so does a
// mapped one with KeepREST. Visitors (the vendor's unique counts) stay.
func TestStreamReplacesRESTSources(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep_rest=%v", keep), func(t *testing.T) {
			r := newStreamRig(t)
			now := time.Now()
			data := func(seed int64) *mintlifytest.Dataset {
				return mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: seed, Paths: 20, Days: 3, End: now})
			}
			fake := apitest.Fake(t, mintlifytest.WithProject("p1", data(1)), mintlifytest.WithProject("p2", data(2)))
			key := apitest.Key(t)
			x, err := exporter.New(exporter.Config{
				APIURL: fake.URL(), Key: key, Timeout: 5 * time.Second, Projects: []string{"p1", "p2"}, RequestsPerHour: 90,
				Collectors: []string{"visitors", "views", "feedback", "searches"}, Windows: apitest.Windows(t, "1d"),
				RefreshInterval: 15 * time.Minute, Sources: collector.Options{PageSize: 250},
				Stream: &exporter.StreamConfig{Bucket: "events", Prefix: "p/", Endpoint: r.s3.URL(), Region: "us-east-1",
					AccessKeyID: "AKIDTEST", SecretAccessKey: "not-a-secret", PollInterval: time.Minute, LookBack: 2 * time.Hour,
					Projects: map[string]string{"docs": "p1"}, MaxPaths: 100, TopReferrers: 10, KeepREST: keep}})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			units := map[string]bool{}
			for _, u := range x.Engine().States() {
				units[u.Source+"/"+u.Project] = true
			}
			for _, src := range []string{"views", "feedback", "searches"} {
				if got, want := units[src+"/p1"], keep; got != want {
					t.Errorf("unit %s/p1 made: %v, want %v", src, got, want)
				}
				if !units[src+"/p2"] {
					t.Errorf("unit %s/p2 missing: p2 is not on the stream", src)
				}
			}
			if !units["visitors/p1"] || !units["visitors/p2"] {
				t.Errorf("visitors units missing: %v", units)
			}
			// Every unit's first refresh starts at once: wait until every one
			// has been tried, then count at the fake.
			deadline := time.Now().Add(20 * time.Second) // a bound, not a timing assertion
			for code, _ := get(t, x.Handler(), "/-/ready"); code != 200; code, _ = get(t, x.Handler(), "/-/ready") {
				if time.Now().After(deadline) {
					t.Fatal("/-/ready never 200")
				}
				time.Sleep(10 * time.Millisecond)
			}
			read := map[string]int{}
			for _, req := range fake.Requests() {
				read[req.Endpoint+"/"+req.Project]++
			}
			for _, ep := range []string{mintlifytest.EndpointViews, mintlifytest.EndpointFeedbackByPage, mintlifytest.EndpointSearches} {
				if n := read[ep+"/p1"]; (n > 0) != keep {
					t.Errorf("the API read %d %s requests of p1, want them only with KeepREST", n, ep)
				}
				if read[ep+"/p2"] == 0 {
					t.Errorf("the API read no %s request of p2", ep)
				}
			}
		})
	}
}

// TestStreamFreesBudgetForREST: at 10 projects x 500 paths, with every
// project on the stream, the engine has the units the stream does not
// replace only (the rule spends the requests they leave on the rest:
// engine's TestBudgetSimulation measures what a budget buys).
func TestStreamFreesBudgetForREST(t *testing.T) {
	r := newStreamRig(t)
	now := time.Now()
	var opts []mintlifytest.Option
	var projects []string
	mapped := map[string]string{}
	for i := range 10 {
		id := fmt.Sprintf("p%d", i)
		projects = append(projects, id)
		mapped[fmt.Sprintf("s%d", i)] = id
		opts = append(opts, mintlifytest.WithProject(id, mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: int64(i), Paths: 500, Days: 3, End: now})))
	}
	fake := apitest.Fake(t, opts...)
	key := apitest.Key(t)
	windows := apitest.Windows(t, "1d", "7d", "30d")
	units := func(keep bool) int {
		x, err := exporter.New(exporter.Config{
			APIURL: fake.URL(), Key: key, Timeout: 5 * time.Second, Projects: projects, RequestsPerHour: 90,
			Collectors: []string{"visitors", "views", "assistant", "feedback", "searches"}, Windows: windows, DeriveWindows: true,
			RefreshInterval: 15 * time.Minute, Sources: collector.Options{PageSize: 250},
			Stream: &exporter.StreamConfig{Bucket: "events", Prefix: "p/", Endpoint: r.s3.URL(), Region: "us-east-1",
				AccessKeyID: "AKIDTEST", SecretAccessKey: "not-a-secret", PollInterval: time.Minute, LookBack: 2 * time.Hour,
				Projects: mapped, MaxPaths: 100, TopReferrers: 10, KeepREST: keep}})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		return len(x.Engine().States())
	}
	allUnits, restUnits := units(true), units(false)
	t.Logf("units %d -> %d", allUnits, restUnits)
	if restUnits >= allUnits {
		t.Errorf("with the stream replacing views, feedback and searches: %d units, want fewer than %d", restUnits, allUnits)
	}
}
