package jobs_test

import (
	"context"
	"io"
	stdlog "log"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// twoActiveJobs is the exposition of jobs a and b, both active.
const twoActiveJobs = jobInfoHeader + `mintlify_agent_job_info{has_pr="false",job_id="a",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="b",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
` + jobCreatedHeader + `mintlify_agent_job_created_timestamp_seconds{job_id="a",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="b",project="p1"} 1.7408304e+09
`

// newTwoJobs returns an env with active jobs a and b in p1 and a watcher of
// them making one request at a time, after one good round.
func newTwoJobs(t *testing.T) (*jobsEnv, *jobs.Watcher) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"a", "b"}, Concurrency: 1})
	e.poll(w)
	e.fake.ResetRequests()
	return e, w
}

func jobsUp(up string, interval string) string {
	return jobsUpHeader + `mintlify_up{project="p1",source="jobs"} ` + up + "\n" +
		jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} ` + interval + "\n"
}

func TestJobsServerErrorKeepsLastStateAndLogsOnce(t *testing.T) {
	e, w := newTwoJobs(t)
	e.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 503})
	for range 3 {
		e.clock.Advance(time.Minute)
		e.poll(w)
	}
	// A server error stops the project's round: one request per round.
	if n := e.fake.CountRequests("get_job"); n != 3 {
		t.Errorf("%d get_job requests in 3 failing rounds, want 3", n)
	}
	e.expectUp(jobsUp("0", "60"))
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 0, 0)+twoActiveJobs)
	if n := e.logs.CountLines("level=error", "project=p1", "get_job: HTTP 503"); n != 1 {
		t.Errorf("error logged %d times in 3 rounds, want once:\n%s", n, e.logs)
	}

	e.fake.ClearFaults()
	e.fake.SetJobStatus("p1", "a", "completed")
	e.clock.Advance(time.Minute)
	e.poll(w)
	e.expectUp(jobsUp("1", "60"))
	if n := e.logs.CountLines("level=info", "polled successfully again"); n != 1 {
		t.Errorf("recovery logged %d times, want once:\n%s", n, e.logs)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 1, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="true",job_id="a",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="completed"} 1
mintlify_agent_job_info{has_pr="false",job_id="b",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="a",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="b",project="p1"} 1.7408304e+09
`)
}

func TestJobsRefusedKey(t *testing.T) {
	e, w := newTwoJobs(t)
	e.fake.RevokeKey(mintlifytest.DefaultKey)
	for range 2 {
		e.clock.Advance(time.Minute)
		e.poll(w)
	}
	if n := e.fake.CountRequests("get_job"); n != 2 {
		t.Errorf("%d get_job requests in 2 rounds with a refused key, want 2", n)
	}
	e.expectUp(jobsUp("0", "60"))
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 0, 0)+twoActiveJobs)
	if n := e.logs.CountLines("level=error", "get_job: HTTP 401"); n != 1 {
		t.Errorf("401 logged %d times, want once:\n%s", n, e.logs)
	}
	if strings.Contains(e.logs.String(), mintlifytest.DefaultKey) {
		t.Errorf("the key appears in the logs:\n%s", e.logs)
	}
}

func TestJobsMalformedJobFailsRoundButNotOthers(t *testing.T) {
	e, w := newTwoJobs(t)
	e.fake.SetJobStatus("p1", "b", "failed")
	e.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Times: 1, Mutate: func(b map[string]any) { b["createdAt"] = 5 }})
	e.clock.Advance(time.Minute)
	e.poll(w)
	// a's answer is malformed: a keeps its last state; b is still read.
	if n := e.fake.CountRequests("get_job"); n != 2 {
		t.Errorf("%d get_job requests, want 2", n)
	}
	e.expectUp(jobsUp("0", "60"))
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 0, 1)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="a",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="b",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="failed"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="a",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="b",project="p1"} 1.7408304e+09
`)
	if n := e.logs.CountLines("level=error", "job_id=a", "createdAt"); n != 1 {
		t.Errorf("decode error logged %d times, want once:\n%s", n, e.logs)
	}
}

func TestJobsRateLimitPausesUntilRetryAfter(t *testing.T) {
	e, w := newTwoJobs(t)
	e.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 429, RetryAfter: "300", Times: 1})
	e.clock.Advance(time.Minute) // t0+1m: 429, paused until t0+6m
	e.poll(w)
	if n := e.fake.CountRequests("get_job"); n != 1 {
		t.Errorf("%d get_job requests in the rate-limited round, want 1", n)
	}
	e.expectUp(jobsUp("0", "300"))
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 0, 0)+twoActiveJobs)
	for range 4 { // t0+2m .. t0+5m: paused
		e.clock.Advance(time.Minute)
		e.poll(w)
	}
	if n := e.fake.CountRequests("get_job"); n != 1 {
		t.Errorf("%d get_job requests while paused, want none after the 429", n-1)
	}
	e.clock.Advance(time.Minute) // t0+6m
	e.poll(w)
	if n := e.fake.CountRequests("get_job"); n != 3 {
		t.Errorf("%d get_job requests after the pause, want 1+2", n)
	}
	e.expectUp(jobsUp("1", "60"))
	if n := e.logs.CountLines("level=error", "rate limited", "paused_until=2025-03-01T12:06:00Z"); n != 1 {
		t.Errorf("rate limit logged %d times, want once:\n%s", n, e.logs)
	}
}

func TestJobsRateLimitWithoutRetryAfterBacksOff(t *testing.T) {
	e, w := newTwoJobs(t)
	e.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 429, Times: 2})
	// Expected get_job requests after each minute: t0+1m 429 (pause 1m);
	// t0+2m 429 (pause 2m); t0+3m paused; t0+4m two reads.
	want := []int{1, 2, 2, 4}
	intervals := []string{"60", "120", "120", "60"}
	for i := range want {
		e.clock.Advance(time.Minute)
		e.poll(w)
		if n := e.fake.CountRequests("get_job"); n != want[i] {
			t.Fatalf("after %d min: %d get_job requests, want %d", i+1, n, want[i])
		}
		up := "0"
		if i == 3 {
			up = "1"
		}
		e.expectUp(jobsUp(up, intervals[i]))
	}
	if n := e.logs.CountLines("level=error", "rate limited"); n != 1 {
		t.Errorf("rate limit logged %d times over two 429 rounds, want once:\n%s", n, e.logs)
	}
}

func TestJobsConcurrencyBounded(t *testing.T) {
	e := newJobsEnv(t)
	var ids []string
	for i := range 12 {
		id := "j" + strconv.Itoa(i)
		ids = append(ids, id)
		e.fake.AddJob("p1", mintlifytest.JobSpec{ID: id, CreatedAt: jobsT0})
	}
	e.fake.SetLatency(20 * time.Millisecond)
	var mu sync.Mutex
	inFlight, peak := 0, 0
	c := e.rig.Client(client.Config{Retry: client.RetryPolicy{MaxAttempts: 1}, Hooks: client.Hooks{
		Allow: func(context.Context, client.Endpoint) error {
			mu.Lock()
			defer mu.Unlock()
			inFlight++
			peak = max(peak, inFlight)
			return nil
		},
		Observe: func(client.Attempt) {
			mu.Lock()
			defer mu.Unlock()
			inFlight--
		},
	}})
	w, err := jobs.New(jobs.Config{Client: c, Status: e.status, Projects: []string{"p1"}, IDs: ids, Concurrency: 3, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	// Scrapes while a round runs see a consistent state (run with -race).
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(w)
		for range 20 {
			if _, err := reg.Gather(); err != nil {
				t.Error(err)
			}
		}
	}()
	w.Poll(context.Background())
	<-done
	if n := e.fake.CountRequests("get_job"); n != 12 {
		t.Errorf("%d reads, want 12", n)
	}
	if peak > 3 {
		t.Errorf("%d requests in flight at once, want at most 3", peak)
	}
	e.expectUp(jobsUp("1", "60"))
}

func TestJobsForbiddenStopsRoundAndSaysWhy(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"a", "b"}, Discover: true, Concurrency: 1})
	e.fake.SetAllowlist(netip.MustParsePrefix("192.0.2.0/24"))
	for range 2 {
		e.poll(w)
		e.clock.Advance(time.Minute)
	}
	// The listing is refused, and so no job is read: a 403 concerns every
	// request of the key from this place.
	if l, g := e.fake.CountRequests("list_jobs"), e.fake.CountRequests("get_job"); l != 2 || g != 0 {
		t.Errorf("list_jobs %d, get_job %d; want 2 and 0", l, g)
	}
	e.expectUp(jobsUp("0", "60"))
	if n := e.logs.CountLines("level=error", "this IP is not on the organization's allowlist, or the key lacks the read scope"); n != 1 {
		t.Errorf("the refusal was logged %d times, want once, saying why:\n%s", n, e.logs)
	}
}

// TestJobsCertificateErrorOnListingStopsRound: a certificate the system
// does not trust concerns every request to the API, as a refused key does:
// after the listing fails over it, no job is read that round.
func TestJobsCertificateErrorOnListingStopsRound(t *testing.T) {
	e := newJobsEnv(t)
	srv := httptest.NewUnstartedServer(e.fake.Handler())
	srv.Config.ErrorLog = stdlog.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tried := map[string]int{}
	e.client, err = client.New(client.Config{BaseURL: srv.URL, Key: key, Retry: client.RetryPolicy{MaxAttempts: 1}, Hooks: client.Hooks{
		Allow: func(_ context.Context, ep client.Endpoint) error {
			mu.Lock()
			defer mu.Unlock()
			tried[ep.String()]++
			return nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"a", "b"}, Discover: true, Concurrency: 1})
	e.poll(w)
	mu.Lock()
	defer mu.Unlock()
	if tried["list_jobs"] != 1 || tried["get_job"] != 0 {
		t.Errorf("attempts %v; want one list_jobs and no get_job", tried)
	}
	e.expectUp(jobsUp("0", "60"))
}
