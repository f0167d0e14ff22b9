package jobs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
)

// jobsRound is one project's part of a poll round.
type jobsRound struct {
	project string
	stopped atomic.Bool // no further request for the project this round
	err     error       // the round's failure, from job errJob ("" for the listing)
	errJob  string
}

type jobsRead struct {
	round *jobsRound
	id    string
}

// readAll makes the reads, Concurrency at once, but not of stopped rounds.
func (w *Watcher) readAll(ctx context.Context, start time.Time, reads []jobsRead) {
	sem := make(chan struct{}, w.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, rd := range reads {
		sem <- struct{}{} // the reads in flight end with ctx too
		if ctx.Err() != nil || rd.round.stopped.Load() {
			<-sem
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			job, err := w.cfg.Client.GetJob(ctx, rd.round.project, rd.id)
			w.mu.Lock()
			defer w.mu.Unlock()
			w.applyRead(ctx, start, rd, job, err)
		})
	}
	wg.Wait()
}

// applyRead records the answer to one read; the caller holds w.mu. The job's
// entry is there: only Poll's updateMembership drops one, before it lists the reads.
func (w *Watcher) applyRead(ctx context.Context, start time.Time, rd jobsRead, job *client.Job, err error) {
	p := w.projects[rd.round.project]
	e := p.jobs[rd.id]
	switch {
	case err == nil:
		if e.gone {
			level.Info(w.cfg.Logger).Log("msg", "agent job found again", "project", p.id, "job_id", rd.id)
		}
		if job.Status.Terminal() && e.job != nil && !e.job.Status.Terminal() { // ended: one line, with its pull request
			level.Info(w.cfg.Logger).Log("msg", "agent job ended", "project", p.id, "job_id", rd.id, "status", job.Status, "pull_request", deref(job.PRLink))
		}
		e.job, e.gone = job, false
		e.nextRead = start.Add(w.cfg.PollInterval)
		if job.Status.Terminal() {
			e.nextRead = start.Add(w.terminal)
		}
		if k := [3]string{"status", p.id, string(job.Status)}; !job.Status.Known() && !w.logged[k] {
			w.logged[k] = true
			msg := "agent job has a status the exporter does not know; it is counted under its own value"
			if job.Status == "" {
				msg = "agent job has no status; it is counted under an empty status"
			}
			level.Warn(w.cfg.Logger).Log("msg", msg, "project", p.id, "job_id", rd.id, "status", job.Status)
		}
	case ctx.Err() != nil:
		// Shutting down: not a failure of the API.
	case client.IsNotFound(err):
		if !e.gone {
			msg := "agent job not found; it is no longer exported, and is counted in mintlify_agent_jobs_not_found"
			if e.discovered && !e.named && e.job == nil {
				// The API does not promise the v1 sessionId is the v2 job id.
				msg = "agent job discovered through the v1 listing is not found by get-agent-job: the listing's sessionId may not be the job id; it is counted in mintlify_agent_jobs_not_found"
			}
			level.Warn(w.cfg.Logger).Log("msg", msg, "project", p.id, "job_id", rd.id, "err", err)
		}
		e.job, e.gone = nil, true
		e.nextRead = start.Add(w.terminal)
	default:
		w.failed(rd.round, rd.id, err)
	}
}

// failed fails a project's round (jobID "" for the listing). A failure that
// concerns the API or key rather than one job ends the project's requests
// for the round, since more would only add load: a refused key or
// certificate, a 429 (which pauses the project) and, for a read, a 5xx or a
// transport failure (the deprecated listing may break on its own). The
// caller holds w.mu.
func (w *Watcher) failed(r *jobsRound, jobID string, err error) {
	retryAfter, hasRetryAfter, limited := client.IsRateLimited(err)
	if r.err == nil || limited { // the rate limit is what the round reports
		r.err, r.errJob = err, jobID
	}
	if limited || client.IsRefused(err) || client.IsCertificateError(err) || jobID != "" && client.IsTransient(err) {
		r.stopped.Store(true)
	}
	if !limited {
		return
	}
	p := w.projects[r.project]
	pause := min(retryAfter, client.MaxRateLimitPause)
	if !hasRetryAfter {
		p.limited++
		pause = backoff.JobsRateLimit.Delay(p.limited)
	}
	if until := w.cfg.Now().Add(pause); until.After(p.pausedUntil) {
		p.pausedUntil = until
	}
	w.cfg.Status.SetInterval(p.id, Source, "", health.PartAll, max(w.cfg.PollInterval, pause))
}
