package agentcmd

import (
	"context"
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

// follow polls the job until it ends, timeout passes, ctx ends or an error
// retrying cannot fix; it returns the last job known and the exit code. The
// job is read at least once: messages are processed asynchronously.
func (r *run) follow(job *client.Job) (*client.Job, int) {
	// stop ends the status line and says why waiting stopped.
	stop := func(code int, format string, args ...any) (*client.Job, int) {
		r.done()
		r.fail(fmt.Sprintf(format, args...))
		return job, code
	}
	timedOut := func() (*client.Job, int) {
		return stop(ExitTimeout, "gave up waiting after %s: job %s is still %s", r.timeout, r.job, job.Status)
	}
	interrupted := func() (*client.Job, int) {
		return stop(ExitInterrupted, "interrupted: stopped waiting; the message was sent and job %s was last seen %s", r.job, job.Status)
	}
	r.show(job, false)
	delay := waitFirstDelay
	for {
		// Sleep no further than --wait.timeout (not at all once it passed);
		// the read, with the client's retries, gets only what is left of it.
		if err := r.sleep(min(delay, r.timeout-r.env.Now().Sub(r.start))); err != nil {
			return interrupted()
		}
		delay = min(time.Duration(float64(delay)*waitGrowth), waitMaxDelay)
		left := r.timeout - r.env.Now().Sub(r.start)
		if left <= 0 {
			return timedOut()
		}
		rctx, cancel := context.WithTimeout(r.ctx, left)
		j, err := r.env.Client.GetJob(rctx, r.project, r.job)
		expired := rctx.Err() != nil
		cancel()
		if err != nil {
			if r.ctx.Err() != nil {
				return interrupted()
			}
			if expired {
				return timedOut()
			}
			if !client.IsTransient(err) {
				return stop(ExitError, "%s", r.describe(err, client.EndpointGetJob))
			}
			if retryAfter, _, ok := client.IsRateLimited(err); ok {
				delay = max(delay, retryAfter)
			}
			r.note(ErrorLine(fmt.Sprintf("reading job %s failed, trying again: %v", r.job, err)))
			continue
		}
		job = j
		r.show(job, true)
		if job.Status.Terminal() {
			r.done()
			if job.Status == client.StatusFailed {
				return job, ExitJobFailed
			}
			return job, ExitOK
		}
	}
}

// sleep waits d (not at all when d <= 0), redrawing a terminal's status line
// every second.
func (r *run) sleep(d time.Duration) error {
	step := d // off a terminal, one sleep
	if r.env.StderrIsTerminal {
		step = time.Second
	}
	for ; d > 0; d -= step {
		if err := r.env.Sleep(r.ctx, min(d, step)); err != nil {
			return err
		}
		r.redraw()
	}
	return nil
}

// progressEvery is how often an unchanged status is printed off a terminal.
const progressEvery = 30 * time.Second

const clearLine = "\r\x1b[K"

// show reports the job. fromRead is false for the job the message call
// returned, whose pull request link may predate the message.
func (r *run) show(job *client.Job, fromRead bool) {
	changed := job.Status != r.status
	r.status = job.Status
	if r.env.StderrIsTerminal {
		r.redraw()
	} else if changed || r.env.Now().Sub(r.printed) >= progressEvery { // the first time too: printed is zero
		fmt.Fprintln(r.env.Stderr, r.line())
		r.printed = r.env.Now()
	}
	if fromRead && job.PRLink != nil && *job.PRLink != "" && *job.PRLink != r.pr {
		r.pr = *job.PRLink
		r.note("pull request: " + ErrorLine(r.pr))
	}
}

func (r *run) line() string {
	return ErrorLine(fmt.Sprintf("job %s: %s (%s)", r.job, r.status, r.env.Now().Sub(r.start).Round(time.Second)))
}

func (r *run) redraw() {
	if !r.env.StderrIsTerminal { // follow shows the job before anything redraws
		return
	}
	fmt.Fprint(r.env.Stderr, clearLine+r.line())
	r.drawn = true
}

// note prints a message on its own line, keeping the status line below it.
func (r *run) note(msg string) {
	if r.drawn {
		fmt.Fprint(r.env.Stderr, clearLine)
	}
	fmt.Fprintln(r.env.Stderr, msg)
	r.redraw()
}

func (r *run) done() {
	if r.drawn {
		fmt.Fprintln(r.env.Stderr)
		r.drawn = false
	}
}
