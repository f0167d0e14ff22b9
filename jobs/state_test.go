package jobs_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

func TestJobsRows(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p2", mintlifytest.JobSpec{ID: "z", Status: "completed", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", CreatedAt: jobsT0.Add(-time.Hour)})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", Status: "completed", Omit: []string{"createdAt"}})
	w := e.watcher(jobs.Config{Projects: []string{"p2", "p1"}, IDs: []string{"p2/z", "p1/b", "p1/a", "p1/gone"}})
	if rows := w.Jobs(); len(rows) != 4 || rows[0].Known || rows[0].NotFound {
		t.Errorf("before the first poll: %+v", rows)
	}
	e.poll(w)
	rows := w.Jobs()
	pr := "https://github.com/acme/docs/pull/"
	want := []jobs.Row{
		{Project: "p1", ID: "a", Status: "completed", Known: true},
		{Project: "p1", ID: "b", Status: "active", CreatedAt: jobsT0.Add(-time.Hour), Known: true},
		{Project: "p1", ID: "gone", NotFound: true},
		{Project: "p2", ID: "z", Status: "completed", Known: true, CreatedAt: jobsT0},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i := range want {
		got := rows[i]
		if got.PRLink != "" {
			if len(got.PRLink) <= len(pr) || got.PRLink[:len(pr)] != pr {
				t.Errorf("row %d: PR link %q", i, got.PRLink)
			}
			got.PRLink = ""
		}
		if !got.CreatedAt.Equal(want[i].CreatedAt) {
			t.Errorf("row %d: created %v, want %v", i, got.CreatedAt, want[i].CreatedAt)
		}
		got.CreatedAt = want[i].CreatedAt
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, got, want[i])
		}
	}
	if rows[0].PRLink == "" || rows[3].PRLink == "" || rows[1].PRLink != "" {
		t.Errorf("PR links: %q %q %q", rows[0].PRLink, rows[1].PRLink, rows[3].PRLink)
	}

	// Race-free against polls (go test -race).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			w.Poll(ctx)
		}
	}()
	for range 200 {
		if n := len(w.Jobs()); n != 4 {
			t.Errorf("%d rows during polls", n)
			break
		}
	}
	wg.Wait()
}
