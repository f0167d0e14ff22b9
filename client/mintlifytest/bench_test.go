package mintlifytest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestUnstartedHandler(t *testing.T) {
	s := mintlifytest.NewUnstartedServer(mintlifytest.WithClock(func() time.Time { return t0 }),
		mintlifytest.WithProject("proj", tinyDataset()))
	if s.URL() != "" {
		t.Fatalf("unstarted URL %q", s.URL())
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	req, _ := http.NewRequest("GET", ts.URL+"/v1/analytics/proj/visitors", nil)
	req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	s.Close()
	s.Close()
}

var benchData = struct {
	d *mintlifytest.Dataset
}{}

func bigDataset(b *testing.B) *mintlifytest.Dataset {
	if benchData.d == nil {
		benchData.d = mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 100000, Days: 30, End: t0})
	}
	return benchData.d
}

func BenchmarkGenerate100k(b *testing.B) {
	for b.Loop() {
		mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 100000, Days: 30, End: t0})
	}
}

// BenchmarkWalk100k walks all 400 pages of 100,000 paths over 30 days
// through the handler (no network), as the exporter does for one window.
func BenchmarkWalk100k(b *testing.B) {
	s := mintlifytest.NewUnstartedServer(mintlifytest.WithClock(func() time.Time { return t0 }),
		mintlifytest.WithProject("proj", bigDataset(b)))
	h := s.Handler()
	for b.Loop() {
		s.ResetRequests()
		for offset := 0; ; offset += 250 {
			req := httptest.NewRequest("GET", visitorsPath("proj", day(-29), day(1), 250, offset), nil)
			req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("status %d", w.Code)
			}
			if offset >= 100000 {
				break
			}
		}
	}
}

// BenchmarkPage100k measures one cached 250-row page over HTTP.
func BenchmarkPage100k(b *testing.B) {
	s := mintlifytest.NewServer(mintlifytest.WithClock(func() time.Time { return t0 }),
		mintlifytest.WithProject("proj", bigDataset(b)))
	defer s.Close()
	url := s.URL() + visitorsPath("proj", day(-29), day(1), 250, 1000)
	for b.Loop() {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkRange100k measures computing a new range (sum and sort).
func BenchmarkRange100k(b *testing.B) {
	d := bigDataset(b)
	i := 0
	for b.Loop() {
		// A fresh server each time so nothing is cached.
		s := mintlifytest.NewUnstartedServer(mintlifytest.WithClock(func() time.Time { return t0 }), mintlifytest.WithProject("proj", d))
		s.Visitors("proj", day(-29+i%2), day(1))
		i++
	}
}
