package jobs

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// jobsRound is one project's part of a poll round.
type jobsRound struct {
	project string
	// stopped is set when the project must get no further request in this
	// round (a 429, a refused key, a server or transport failure).
	stopped atomic.Bool
	// err is the failure reported for the round and errJob the job it came
	// from ("" for the listing); guarded by Watcher.mu.
	err    error
	errJob string
}

// jobsRead is one get-agent-job request to make.
type jobsRead struct {
	round *jobsRound
	id    string
}

// readAll makes the reads, at most Concurrency at once, skipping those of
// projects whose round was stopped.
func (w *Watcher) readAll(ctx context.Context, start time.Time, reads []jobsRead) {
	sem := make(chan struct{}, w.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, rd := range reads {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if rd.round.stopped.Load() {
			<-sem
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			job, err := w.cfg.Client.GetJob(ctx, rd.round.project, rd.id)
			w.mu.Lock()
			defer w.mu.Unlock()
			w.applyRead(ctx, start, rd, job, err)
		}()
	}
	wg.Wait()
}

// applyRead records the answer to one read; the caller holds w.mu.
func (w *Watcher) applyRead(ctx context.Context, start time.Time, rd jobsRead, job *client.Job, err error) {
	p := w.projects[rd.round.project]
	e := p.jobs[rd.id]
	if e == nil {
		return
	}
	switch {
	case err == nil:
		if e.gone {
			level.Info(w.logger).Log("msg", "agent job found again", "project", p.id, "job_id", e.id)
		}
		if job.Status.Terminal() && e.job != nil && !e.job.Status.Terminal() {
			// One line when a watched job ends, with its pull request.
			pr := ""
			if job.PRLink != nil {
				pr = *job.PRLink
			}
			level.Info(w.logger).Log("msg", "agent job ended", "project", p.id, "job_id", e.id, "status", job.Status, "pull_request", pr)
		}
		e.job, e.gone = job, false
		interval := w.cfg.PollInterval
		if job.Status.Terminal() {
			interval = w.cfg.TerminalInterval
		}
		e.nextRead = start.Add(interval)
		if k := [2]string{p.id, string(job.Status)}; !job.Status.Known() && !w.unknown[k] {
			w.unknown[k] = true
			msg := "agent job has a status the exporter does not know; it is counted under its own value"
			if job.Status == "" {
				msg = "agent job has no status; it is counted under an empty status"
			}
			level.Warn(w.logger).Log("msg", msg, "project", p.id, "job_id", e.id, "status", job.Status)
		}
	case ctx.Err() != nil:
		// Shutting down: not a failure of the API.
	case client.IsNotFound(err):
		if !e.gone {
			msg := "agent job not found; it is no longer exported, and is counted in mintlify_agent_jobs_not_found"
			if e.discovered && !e.static && !e.fromFile && e.job == nil {
				// The v1 listing named it and it was never found, so the
				// listing's sessionId is not the v2 job id here: the API
				// does not promise that it is.
				msg = "agent job discovered through the v1 listing is not found by get-agent-job: the listing's sessionId may not be the job id; it is counted in mintlify_agent_jobs_not_found"
			}
			level.Warn(w.logger).Log("msg", msg, "project", p.id, "job_id", e.id, "err", err)
		}
		e.job, e.gone = nil, true
		e.nextRead = start.Add(w.cfg.TerminalInterval)
	default:
		w.failed(rd.round, rd.id, err, jobsStopsRound(err))
	}
}

// failed records a failed request of a project's round (jobID "" for the
// listing): the round fails, and stop says whether the project gets no
// further request in it. A 429 always stops it and pauses the project until
// Retry-After, or for a doubling backoff when the header is absent. The
// caller holds w.mu.
func (w *Watcher) failed(r *jobsRound, jobID string, err error, stop bool) {
	retryAfter, hasRetryAfter, limited := client.IsRateLimited(err)
	if !limited {
		if r.err == nil {
			r.err, r.errJob = err, jobID
		}
		if stop {
			r.stopped.Store(true)
		}
		return
	}
	r.stopped.Store(true)
	r.err, r.errJob = err, jobID // the rate limit is what the round reports
	p := w.projects[r.project]
	pause := min(retryAfter, client.MaxRateLimitPause)
	if !hasRetryAfter {
		p.limited++
		pause = jobsBackoff.Delay(p.limited)
	}
	if until := w.cfg.Now().Add(pause); until.After(p.pausedUntil) {
		p.pausedUntil = until
	}
	w.cfg.Status.SetInterval(p.id, Source, "", max(w.cfg.PollInterval, pause))
}

// jobsStopsRound reports whether an error concerns the API or the key as a
// whole rather than one job, so further requests in the round would only
// add load: a refused key (401) or caller (403), a server error or a transport failure. A
// malformed job, an id the client refuses to send or another 4xx concerns
// that job only.
func jobsStopsRound(err error) bool {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return client.IsRefused(err) || ae.StatusCode >= http.StatusInternalServerError
	}
	var de *client.DecodeError
	if errors.As(err, &de) || errors.Is(err, client.ErrBodyTooLarge) || errors.Is(err, client.ErrInvalidID) {
		return false
	}
	return true
}
