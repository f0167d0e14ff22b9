package agentcmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Delays between reads of the job while waiting.
const (
	waitFirstDelay = 2 * time.Second
	waitMaxDelay   = 30 * time.Second
	waitGrowth     = 1.5
)

// waiter follows a job after a message until it ends.
type waiter struct {
	*run
	jobID    string
	start    time.Time // when the message was sent
	timeout  time.Duration
	progress progress
}

// wait polls the job until it ends, timeout passes, ctx ends or an error
// retrying cannot fix; it returns the last job known and the exit code. The
// job is read at least once: messages are processed asynchronously.
func (w *waiter) wait(job *client.Job) (*client.Job, int) {
	w.progress.show(job, false)
	delay := waitFirstDelay
	for read := false; ; {
		if read && job.Status.Terminal() {
			w.progress.done()
			if job.Status == client.StatusFailed {
				return job, ExitJobFailed
			}
			return job, ExitOK
		}
		elapsed := w.env.Now().Sub(w.start)
		if elapsed >= w.timeout {
			return job, w.timedOut(job)
		}
		if err := w.sleep(min(delay, w.timeout-elapsed)); err != nil {
			return job, w.interrupted(job)
		}
		delay = min(time.Duration(float64(delay)*waitGrowth), waitMaxDelay)
		// The read, with the client's retries, gets only what is left of
		// --wait.timeout.
		left := w.timeout - w.env.Now().Sub(w.start)
		if left <= 0 {
			return job, w.timedOut(job)
		}
		rctx, cancel := context.WithTimeout(w.ctx, left)
		j, err := w.env.Client.GetJob(rctx, w.project, w.jobID)
		expired := rctx.Err() != nil
		cancel()
		if err != nil {
			if w.ctx.Err() != nil {
				return job, w.interrupted(job)
			}
			if expired {
				return job, w.timedOut(job)
			}
			if !retryable(err) {
				w.progress.done()
				fmt.Fprintln(w.env.Stderr, ErrorPrefix+ErrorLine(w.describe(err, w.jobID, client.EndpointGetJob)))
				return job, ExitError
			}
			if retryAfter, _, ok := client.IsRateLimited(err); ok {
				delay = max(delay, retryAfter)
			}
			w.progress.note(ErrorLine(fmt.Sprintf("reading job %s failed, trying again: %v", w.jobID, err)))
			continue
		}
		job, read = j, true
		w.progress.show(job, true)
	}
}

// sleep waits d, redrawing a terminal's status line every second.
func (w *waiter) sleep(d time.Duration) error {
	if !w.progress.tty {
		return w.env.Sleep(w.ctx, d)
	}
	for d > 0 {
		step := min(d, time.Second)
		if err := w.env.Sleep(w.ctx, step); err != nil {
			return err
		}
		d -= step
		w.progress.redraw()
	}
	return nil
}

// interrupted reports that waiting was stopped by the context.
func (w *waiter) interrupted(job *client.Job) int {
	w.progress.done()
	fmt.Fprintln(w.env.Stderr, ErrorPrefix+ErrorLine(fmt.Sprintf("interrupted: stopped waiting; the message was sent and job %s was last seen %s", w.jobID, job.Status)))
	return ExitInterrupted
}

// timedOut reports that --wait.timeout passed.
func (w *waiter) timedOut(job *client.Job) int {
	w.progress.done()
	fmt.Fprintln(w.env.Stderr, ErrorPrefix+ErrorLine(fmt.Sprintf("gave up waiting after %s: job %s is still %s", w.timeout, w.jobID, job.Status)))
	return ExitTimeout
}

// retryable reports whether a failed read is worth retrying: a 429, a 5xx
// or a transport failure.
func retryable(err error) bool {
	if _, _, ok := client.IsRateLimited(err); ok {
		return true
	}
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode >= 500
	}
	var de *client.DecodeError
	return !errors.As(err, &de) && !errors.Is(err, client.ErrBodyTooLarge)
}
