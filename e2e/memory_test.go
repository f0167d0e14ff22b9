package e2e

// What one walk holds in memory is bounded whatever the API sends: 100 MB
// pages and gzip bombs on concurrent walks keep the exporter's peak RSS
// under the deployment's memory limit (256Mi in
// deploy/kubernetes/deployment.yaml, with GOMEMLIMIT=200MiB).

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// deploymentMemoryLimit is the memory limit of the shipped Kubernetes
// deployment.
const deploymentMemoryLimit = 256 << 20

// gzipBomb returns n bytes of '[' compressed with gzip (about a
// thousandth of n).
func gzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte{'['}, 1<<20)
	for range n >> 20 {
		if _, err := zw.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHostileAnswersStayUnderTheMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100 MB answers (-short)")
	}
	t.Parallel()
	today := utcToday()
	// No upstream limit: with a refresh interval of 1 s the engine's timer
	// refreshes every unit every second, far past the API's 100 an hour.
	srv := newFake(t, today, map[string]int{"mem-a": 1000}, mintlifytest.WithRateLimit(0))
	srv.AddJob("mem-a", mintlifytest.JobSpec{ID: "job-1", RunFor: time.Hour})
	args := []string{"--mintlify.api-url=" + srv.URL(), "--mintlify.project-id=mem-a", "--log.level=debug",
		"--analytics.max-paths=0", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches",
		// Every window read whole: the test is about the walks' memory.
		"--mintlify.requests-per-hour=100000", "--analytics.refresh-interval=1s", "--no-analytics.derived-windows",
		"--collector.jobs", "--jobs.id=job-1", "--jobs.poll-interval=1s"}
	p := startExporter(t, append([]string{"GOMEMLIMIT=200MiB"}, keyEnv...), args...)
	// A first good round: the walks then know their pages, and the next
	// ones fetch them 4 at a time.
	eventually(t, 60*time.Second, "the first data of every unit", func() string {
		if resp, body := p.get(t, "/-/ready", nil); resp.StatusCode != http.StatusOK {
			return string(body)
		}
		return ""
	})
	before := p.peakRSS(t)

	page := append([]byte(`{"totals":{"human":1,"ai":1,"total":2},"hasMore":true,"visitors":[{"path":"/`),
		bytes.Repeat([]byte{'a'}, 100<<20)...)
	bomb := gzipBomb(t, 256<<20)
	base := map[string]int{}
	for _, ep := range []string{mintlifytest.EndpointVisitors, mintlifytest.EndpointViews, mintlifytest.EndpointGetJob} {
		base[ep] = srv.CountRequests(ep)
	}
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, BodyBytes: page})
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointViews, Offset: mintlifytest.AnyOffset, BodyBytes: bomb, ContentEncoding: "gzip"})
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, BodyBytes: bomb, ContentEncoding: "gzip"})
	// Every unit fails once (its next attempt is 30 s later): 3 windows of
	// each source, 4 pages at a time, and the job read every second.
	eventually(t, 60*time.Second, "every unit to meet the hostile answers", func() string {
		p.get(t, "/metrics", nil) // a scrape starts due refreshes
		for ep, n := range base {
			if got := srv.CountRequests(ep) - n; got < 6 {
				return ep + ": " + strconv.Itoa(got) + " requests"
			}
		}
		return ""
	})
	peak := p.peakRSS(t)
	t.Logf("peak RSS: %.1f MiB after the first round, %.1f MiB after 100 MB pages and 256 MiB gzip bombs",
		float64(before)/(1<<20), float64(peak)/(1<<20))
	if peak >= deploymentMemoryLimit {
		t.Errorf("peak RSS %.1f MiB, over the deployment's limit of %d MiB", float64(peak)/(1<<20), deploymentMemoryLimit>>20)
	}
	if resp, _ := p.get(t, "/metrics", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("scrape after the hostile answers: HTTP %d", resp.StatusCode)
	}
	p.stop(t)
}
