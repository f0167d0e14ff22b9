package demo_test

import (
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// manualClock is a clock the test moves.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestCreatedJobCompletes: a job created in the demo (agent create --demo)
// runs for CreatedJobRunFor and then completes with a pull request, so
// that --wait ends; before, it stayed active forever.
func TestCreatedJobCompletes(t *testing.T) {
	clock := &manualClock{now: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
	s := demo.Start(clock.Now)
	t.Cleanup(s.Close)
	c := apitest.Client(t, s.Server, client.Config{Timeout: 10 * time.Second})
	project := s.ProjectIDs[0]
	job, err := c.CreateJob(t.Context(), project, "Fix the typo on the quickstart page")
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(demo.CreatedJobRunFor - time.Second)
	if j, err := c.GetJob(t.Context(), project, job.ID); err != nil || j.Status != client.StatusActive {
		t.Fatalf("before its run time the job is %+v (%v), want active", j, err)
	}
	clock.advance(time.Second)
	j, err := c.GetJob(t.Context(), project, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != client.StatusCompleted || j.PRLink == nil {
		t.Errorf("after %s the job is %+v, want completed with a pull request", demo.CreatedJobRunFor, j)
	}
}
