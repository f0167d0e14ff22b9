package agentcmd_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
)

// s is a shorthand for durations in seconds.
func s(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }

func TestWaitCompletedLinePerChange(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{RunFor: 3 * time.Minute, Ref: "main"})
	code := h.run("agent", "message", "--job=j1", "--prompt=add a changelog page", "--wait")
	// Reads after 2s, then delays growing by half up to 30s: the job ends
	// at 3m and is seen at 184.34375s. Off a terminal a line is printed at
	// each change and, while nothing changes, at the first read 30 s or
	// more after the last line (41.6 s, 94.3 s, 124.3 s, 154.3 s).
	h.expect(code, 0, jobJSON("completed", "main", "https://github.com/acme/docs/pull/1"),
		"job j1: active (0s)\njob j1: active (42s)\njob j1: active (1m34s)\njob j1: active (2m4s)\njob j1: active (2m34s)\n"+
			"job j1: completed (3m4s)\npull request: https://github.com/acme/docs/pull/1\n")
	want := []time.Duration{s(2), s(3), s(4.5), s(6.75), s(10.125), s(15.1875), s(22.78125), s(30), s(30), s(30), s(30)}
	if !slices.Equal(h.sleeps, want) {
		t.Errorf("sleeps %v, want %v", h.sleeps, want)
	}
	if n := h.fake.CountRequests("get_job"); n != len(want) {
		t.Errorf("%d reads, want %d", n, len(want))
	}
}

func TestWaitTerminalUpdatingLine(t *testing.T) {
	h := newHarness(t)
	h.tty = true
	h.addJob(mintlifytest.JobSpec{RunFor: 4 * time.Second})
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait")
	const cl = "\r\x1b[K"
	h.expect(code, 0, jobJSON("completed", "null", "https://github.com/acme/docs/pull/1"),
		cl+"job j1: active (0s)"+
			cl+"job j1: active (1s)"+cl+"job j1: active (2s)"+ // sleeping 2s, a redraw a second
			cl+"job j1: active (2s)"+ // read at 2s
			cl+"job j1: active (3s)"+cl+"job j1: active (4s)"+cl+"job j1: active (5s)"+
			cl+"job j1: completed (5s)"+ // read at 5s
			cl+"pull request: https://github.com/acme/docs/pull/1\n"+
			cl+"job j1: completed (5s)\n")
}

func TestWaitFailed(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{RunFor: 4 * time.Second, Outcome: "failed"})
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=go", "--wait"), 2, jobJSON("failed", "null", "null"),
		"job j1: active (0s)\njob j1: failed (5s)\n")
}

func TestWaitArchived(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	h.onSleep = func(i int) error {
		if i == 1 {
			h.fake.SetJobStatus("p1", "j1", "archived")
		}
		return nil
	}
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait")
	if code != 0 {
		t.Errorf("exit %d, want 0; stderr %q", code, h.stderr.String())
	}
	if want := "job j1: active (0s)\njob j1: archived (5s)\n"; h.stderr.String() != want {
		t.Errorf("stderr %q, want %q", h.stderr.String(), want)
	}
}

func TestWaitCompletedFromSendResponseIsReadAgain(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{Status: "completed"})
	// The fake makes the job active at once; an API that answered with the
	// job's old status would still be read before the command ends.
	h.fake.AddFault(mintlifytest.Fault{Endpoint: "send_message", Times: 1, Mutate: func(b map[string]any) { b["status"] = "completed" }})
	h.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Times: 1, Status: 503})
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait", "--wait.timeout=10s")
	h.expect(code, 3, jobJSON("active", "null", "null"),
		"job j1: completed (0s)\n"+
			"reading job j1 failed, trying again: get_job: HTTP 503: Service Unavailable\n"+
			"job j1: active (5s)\n"+
			progname.ErrorPrefix+"gave up waiting after 10s: job j1 is still active\n")
	if want := []time.Duration{s(2), s(3), s(4.5), s(0.5)}; !slices.Equal(h.sleeps, want) {
		t.Errorf("sleeps %v, want %v (the last one cut at the timeout)", h.sleeps, want)
	}
}

func TestWaitTimeout(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait", "--wait.timeout=1m")
	h.expect(code, 3, jobJSON("active", "null", "null"), "job j1: active (0s)\njob j1: active (42s)\n"+progname.ErrorPrefix+"gave up waiting after 1m0s: job j1 is still active\n")
	var total time.Duration
	for _, d := range h.sleeps {
		total += d
	}
	if total != time.Minute {
		t.Errorf("slept %s in all, want exactly the timeout", total)
	}
}

func TestWaitInterrupted(t *testing.T) {
	for _, tty := range []bool{false, true} {
		h := newHarness(t)
		h.tty = tty
		h.addJob(mintlifytest.JobSpec{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h.ctx = ctx
		h.onSleep = func(i int) error {
			if i == 2 {
				cancel()
				return ctx.Err()
			}
			return nil
		}
		code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait")
		wantErr := "job j1: active (0s)\n" + progname.ErrorPrefix + "interrupted: stopped waiting; the message was sent and job j1 was last seen active\n"
		if tty {
			wantErr = "\r\x1b[Kjob j1: active (0s)\r\x1b[Kjob j1: active (1s)\r\x1b[Kjob j1: active (2s)\r\x1b[Kjob j1: active (2s)\n" +
				progname.ErrorPrefix + "interrupted: stopped waiting; the message was sent and job j1 was last seen active\n"
		}
		h.expect(code, 130, jobJSON("active", "null", "null"), wantErr)
		if got := h.fake.Messages("p1", "j1"); len(got) != 1 {
			t.Errorf("messages %q, want one", got)
		}
	}
}

func TestWaitFatalErrors(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	h.onSleep = func(i int) error {
		if i == 0 {
			h.fake.RemoveJob("p1", "j1")
		}
		return nil
	}
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=go", "--wait"), 1, jobJSON("active", "null", "null"),
		"job j1: active (0s)\n"+progname.ErrorPrefix+"job j1 not found in project p1\n")

	h = newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	h.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Mutate: func(b map[string]any) { b["status"] = 7 }})
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait")
	if code != 1 || h.fake.CountRequests("get_job") != 1 {
		t.Errorf("malformed job: exit %d after %d reads, want 1 after 1; stderr %q", code, h.fake.CountRequests("get_job"), h.stderr.String())
	}
}

func TestWaitRateLimitedReadWaitsRetryAfter(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{RunFor: time.Minute})
	h.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Times: 1, Status: 429, RetryAfter: "45"})
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait")
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, h.stderr.String())
	}
	// After the wait Retry-After asked for, the delay is back under its cap.
	if want := []time.Duration{s(2), s(45), s(30)}; !slices.Equal(h.sleeps, want) {
		t.Errorf("sleeps %v, want %v", h.sleeps, want)
	}
}

// TestWaitTimeoutBoundsEveryRead: a read of the job that hangs while
// waiting is cut off when --wait.timeout passes (exit 3), not after the
// client's own timeout and retries.
func TestWaitTimeoutBoundsEveryRead(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{RunFor: time.Hour})
	// The read hangs for 10 minutes; the harness gives up (exit 130)
	// after 30 s, which a read bounded by --wait.timeout never reaches.
	// The first wait (2 s) is on the test clock: the read gets the real
	// 0.2 s left of --wait.timeout.
	h.fake.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Delay: 10 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.ctx = ctx
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait", "--wait.timeout=2.2s")
	if code != agentcmd.ExitTimeout || !strings.Contains(h.stderr.String(), "gave up waiting after 2.2s") {
		t.Errorf("exit %d, want %d (--wait.timeout); stderr:\n%s", code, agentcmd.ExitTimeout, h.stderr.String())
	}
}

// TestWaitInvalidJobIDFailsAtOnce: a new job's id that cannot be read
// ("." would address another route) ends --wait at once, as no retry
// can fix it, without a request.
func TestWaitInvalidJobIDFailsAtOnce(t *testing.T) {
	h := newHarness(t)
	h.fake.AddJob("p1", mintlifytest.JobSpec{ID: "existing"}) // makes the project known to the fake
	h.fake.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointCreateJob, Times: 1, Mutate: func(b map[string]any) { b["id"] = "." }})
	code := h.run("agent", "create", "--prompt=go", "--wait")
	if code != agentcmd.ExitError || !strings.Contains(h.stderr.String(), "would address another route") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, agentcmd.ExitError, h.stderr.String())
	}
	if n := h.fake.CountRequests(mintlifytest.EndpointGetJob); n != 0 {
		t.Errorf("%d get_job requests, want none", n)
	}
	if len(h.sleeps) != 1 {
		t.Errorf("sleeps %v, want the first wait only", h.sleeps)
	}
}
