// Package demo runs the exporter's --demo mode backend: the fake Mintlify
// API of package mintlifytest on loopback, filled with synthetic but
// realistic data, so the real exporter code path can be tried end to end
// without an API key.
package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// Projects are the synthetic projects, with their number of paths.
var Projects = []struct {
	ID    string
	Paths int
}{
	{"acme-docs", 800},
	{"acme-developers", 300},
}

// CreatedJobRunFor is how long a job created in the demo (agent create
// --demo) runs before it completes with a pull request, so that --wait
// ends.
const CreatedJobRunFor = 15 * time.Second

// Jobs are the synthetic agent jobs of the first project: one completes
// 20 seconds after the fake starts (so `agent message --demo --wait`
// ends in seconds), one fails after 40, one is already completed, one
// archived.
var Jobs = []mintlifytest.JobSpec{
	{ID: "job-demo-active", Repository: "https://github.com/acme/docs", Ref: "main", Model: "claude-sonnet-4", RunFor: 20 * time.Second},
	{ID: "job-demo-failing", Repository: "https://github.com/acme/docs", Ref: "fix-links", Model: "claude-sonnet-4", RunFor: 40 * time.Second, Outcome: "failed"},
	{ID: "job-demo-done", Repository: "https://github.com/acme/api-docs", Model: "claude-opus-4", Status: "completed"},
	{ID: "job-demo-archived", Repository: "https://github.com/acme/docs", Ref: "old-guide", Model: "claude-sonnet-4", Status: "archived"},
}

// Server is a running demo backend.
type Server struct {
	*mintlifytest.Server
	// Key is the admin key the fake accepts.
	Key string
	// ProjectIDs are the synthetic projects.
	ProjectIDs []string
	// JobIDs are the synthetic jobs as PROJECT/ID, all in the first project.
	JobIDs []string
}

// Start starts the demo backend on 127.0.0.1 with the upstream rate limit of
// 100 analytics requests an hour, and data from 90 days ago to 30 days ahead,
// so a demo left running keeps showing traffic.
//
// The fake enforces the API's 100 analytics requests an hour unless extra
// options say otherwise (backfill's demo lifts it).
func Start(now func() time.Time, extra ...mintlifytest.Option) *Server {
	opts := []mintlifytest.Option{
		mintlifytest.WithClock(now),
		mintlifytest.WithRateLimit(client.AnalyticsRequestsPerHour),
		mintlifytest.WithCreatedJobsRunning(CreatedJobRunFor),
	}
	s := &Server{Key: mintlifytest.DefaultKey}
	for i, p := range Projects {
		opts = append(opts, mintlifytest.WithProject(p.ID, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(i + 1), Paths: p.Paths, Days: 120, End: now().AddDate(0, 0, 30),
		})))
		s.ProjectIDs = append(s.ProjectIDs, p.ID)
	}
	s.Server = mintlifytest.NewServer(append(opts, extra...)...)
	for _, j := range Jobs {
		s.AddJob(Projects[0].ID, j)
		s.JobIDs = append(s.JobIDs, Projects[0].ID+"/"+j.ID)
	}
	return s
}

// Banner is the line logged at start so nobody mistakes the data for real.
func (s *Server) Banner() string {
	return fmt.Sprintf("DEMO MODE: serving SYNTHETIC data from an embedded fake Mintlify API at %s (projects %s); nothing here is real traffic", s.URL(), strings.Join(s.ProjectIDs, ", "))
}
