package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// BenchmarkWalk measures the wall time of one walk of 40 pages (10,000
// paths, limit 250) against the fake API answering each request after
// 100 ms, one page at a time versus 4 at a time when the previous walk
// said how many pages there are. Each op takes seconds: use a small
// -benchtime, for example
//
//	go test -run '^$' -bench Walk -benchtime=3x ./client/
func BenchmarkWalk(b *testing.B) {
	const (
		paths    = 10_000
		pageSize = 250
		pages    = paths / pageSize
		latency  = 100 * time.Millisecond
	)
	end := time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return end.Add(10 * time.Hour) }
	srv := mintlifytest.NewServer(
		mintlifytest.WithClock(now),
		mintlifytest.WithLatency(latency),
		mintlifytest.WithProject("bench-docs", mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: 1, Paths: paths, Days: 1, End: end,
		})),
	)
	b.Cleanup(srv.Close)
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: srv.URL(), Key: key})
	if err != nil {
		b.Fatal(err)
	}
	rng := client.LastNDays(now(), 1)

	for _, tc := range []struct {
		name string
		o    client.WalkOptions
	}{
		{"sequential", client.WalkOptions{PageSize: pageSize}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv.ResetRequests()
			b.ResetTimer()
			for range b.N {
				res, err := walkVisitors(context.Background(), c, "bench-docs", rng, tc.o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Rows) != paths || res.Pages != pages {
					b.Fatalf("walk got %d paths in %d pages, want %d in %d", len(res.Rows), res.Pages, paths, pages)
				}
			}
			b.StopTimer()
			requests := float64(srv.CountRequests(mintlifytest.EndpointVisitors)) / float64(b.N)
			if requests != pages {
				b.Errorf("%v requests a walk, want exactly %d", requests, pages)
			}
			b.ReportMetric(requests, "requests/op")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/walk")
		})
	}
}
