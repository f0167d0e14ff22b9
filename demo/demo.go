// Package demo runs --demo mode's backend: the fake API on loopback with synthetic data.
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

// CreatedJobRunFor is how long a job made by agent create --demo runs, so --wait ends.
const CreatedJobRunFor = 15 * time.Second

// Jobs are the first project's agent jobs; the first ends in seconds, for --wait.
var Jobs = []mintlifytest.JobSpec{
	{ID: "job-demo-active", Repository: "https://github.com/acme/docs", Ref: "main", Model: "claude-sonnet-4", RunFor: 20 * time.Second},
	{ID: "job-demo-failing", Repository: "https://github.com/acme/docs", Ref: "fix-links", Model: "claude-sonnet-4", RunFor: 40 * time.Second, Outcome: "failed"},
	{ID: "job-demo-done", Repository: "https://github.com/acme/api-docs", Model: "claude-opus-4", Status: "completed"},
	{ID: "job-demo-archived", Repository: "https://github.com/acme/docs", Ref: "old-guide", Model: "claude-sonnet-4", Status: "archived"},
}

// Server is a running demo backend.
type Server struct {
	*mintlifytest.Server
	Key        string   // the admin key the fake accepts
	ProjectIDs []string // the synthetic projects
	JobIDs     []string // the synthetic jobs as PROJECT/ID
}

// Start starts the backend on 127.0.0.1, rate-limited like the API unless extra lifts it.
func Start(now func() time.Time, extra ...mintlifytest.Option) *Server {
	opts := []mintlifytest.Option{
		mintlifytest.WithClock(now),
		mintlifytest.WithRateLimit(client.AnalyticsRequestsPerHour),
		mintlifytest.WithCreatedJobsRunning(CreatedJobRunFor),
	}
	s := &Server{Key: mintlifytest.DefaultKey}
	for i, p := range Projects {
		opts = append(opts, mintlifytest.WithProject(p.ID, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(i + 1), Paths: p.Paths, Days: 120, End: now().AddDate(0, 0, 30), // a demo left running keeps showing traffic
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
