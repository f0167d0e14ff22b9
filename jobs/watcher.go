package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/errstate"
	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
)

// Source is the watcher's "source" label value on the status series.
const Source = "jobs"

// MinPollInterval is the shortest PollInterval: job reads are
// outside the analytics request budget, so they are paced by it.
const MinPollInterval = time.Second

// Config configures a Watcher.
type Config struct {
	Client   *client.Client // reads the jobs; required
	Projects []string       // the configured project ids; at least one
	IDs      []string       // --jobs.id: "ID" when exactly one project is configured, else "PROJECT/ID"
	// File (--jobs.file) holds further ids, re-read when it changes; a bad
	// version keeps the last good list and is logged once.
	File     string
	Discover bool // --jobs.discover: also watch what each project's deprecated v1 listing lists at every poll
	Added    bool // allows a watcher with nothing to watch but what Watch adds
	// PollInterval (--jobs.poll-interval) is how often Run polls; a minute when zero.
	PollInterval time.Duration
	Concurrency  int              // get-agent-job requests in flight; 4 when zero
	Status       *health.Status   // receives the health of every project's "jobs" source
	Logger       log.Logger       // receives warnings and errors; none when nil
	Now          func() time.Time // time.Now when nil
}

// Watcher watches agent jobs and collects their state; Run keeps it current.
type Watcher struct {
	cfg      Config
	terminal time.Duration // how often terminal jobs are re-read (a completed one may still be archived)
	static   []jobRef
	// file is --jobs.file (nil without), marked with the version last parsed, good or
	// bad; fileRefs is its last good list (written under mu), fileErr its problem.
	file     *filewatch.File
	fileRefs []jobRef
	fileErr  errstate.State

	pollMu sync.Mutex    // one round at a time
	wake   chan struct{} // Watch asks Run for a round now

	mu       sync.Mutex // guards everything below
	projects map[string]*jobsProject
	order    []string // project ids, sorted
	// logged holds the ("status", project, status) pairs and the
	// ("id", project, id) listed ids refused that were logged.
	logged map[[3]string]bool
}

type jobsProject struct {
	id          string
	jobs        map[string]*jobsEntry
	pausedUntil time.Time      // no requests before this (after a 429)
	limited     int            // 429s without Retry-After since the last good round
	errs        errstate.State // the failure being reported
	skipped     float64        // malformed v1 sessions skipped since start (mintlify_agent_sessions_skipped_total)
}

// jobsEntry is one watched job, under its id in jobsProject.jobs.
type jobsEntry struct {
	// Why the job is watched (named: by --jobs.id or --jobs.file; added: by Watch, for good). A
	// discovered job stays after it leaves the v1 listing (which omits archived jobs) until it
	// answers 404 while not listed (in the listing updateMembership was given).
	named, discovered, added, listed bool
	hint                             client.JobStatus // status from the last v1 listing
	job                              *client.Job      // last successful read; nil before it or after a 404
	gone                             bool             // the API answered 404
	nextRead                         time.Time        // zero: due now
}

// CheckConfig reports what New would refuse in cfg's settings, for a
// command to refuse before it logs anything.
func CheckConfig(cfg Config) error {
	switch {
	case len(cfg.Projects) == 0:
		return errors.New("job watcher: no project: set --mintlify.project-id")
	case cfg.PollInterval < 0 || cfg.PollInterval > 0 && cfg.PollInterval < MinPollInterval:
		return fmt.Errorf("job watcher: --jobs.poll-interval must be at least %s, not %s", MinPollInterval, cfg.PollInterval)
	case len(cfg.IDs) == 0 && cfg.File == "" && !cfg.Discover && !cfg.Added:
		return errors.New("job watcher: nothing to watch: set --jobs.id, --jobs.file or --jobs.discover")
	}
	for _, s := range cfg.IDs {
		if _, err := parseJobRef(s, cfg.Projects); err != nil {
			return fmt.Errorf("--jobs.id: %w", err)
		}
	}
	return nil
}

// New checks cfg, applies its defaults, reads --jobs.file once
// and returns a watcher that has not polled yet. Every project's "jobs"
// source is registered with cfg.Status (as up until its first round).
func New(cfg Config) (*Watcher, error) {
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	cfg.PollInterval = cmp.Or(cfg.PollInterval, time.Minute)
	cfg.Concurrency = cmp.Or(cfg.Concurrency, 4)
	cfg.Logger = cmp.Or(cfg.Logger, log.NewNopLogger())
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w := &Watcher{
		cfg:      cfg,
		terminal: max(15*time.Minute, 10*cfg.PollInterval),
		projects: make(map[string]*jobsProject),
		wake:     make(chan struct{}, 1),
		logged:   make(map[[3]string]bool),
	}
	w.order = slices.Compact(slices.Sorted(slices.Values(cfg.Projects)))
	for _, p := range w.order {
		w.projects[p] = &jobsProject{id: p, jobs: make(map[string]*jobsEntry)}
		cfg.Status.SetInterval(p, Source, "", health.PartAll, cfg.PollInterval)
	}
	if cfg.File != "" {
		w.file = filewatch.New(cfg.File)
		if _, err := w.loadFile(); err != nil {
			return nil, fmt.Errorf("--jobs.file: %w", err)
		}
	}
	for _, s := range cfg.IDs {
		r, _ := parseJobRef(s, w.order) // CheckConfig parsed it
		w.static = append(w.static, r)
	}
	w.updateMembership(nil)
	return w, nil
}

// Watch adds a job of one of the configured projects to the watched ones,
// read at the next poll; the remediation webhook watches the jobs it
// creates this way. An unknown project or an id that cannot be read is
// refused.
func (w *Watcher) Watch(project, id string) error {
	if err := checkJobID(id); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.projects[project]; !ok {
		return fmt.Errorf("project %q is not one of --mintlify.project-id", project)
	}
	w.entry(jobRef{project, id}).added = true
	select { // Run reads it now rather than at the next poll
	case w.wake <- struct{}{}:
	default:
	}
	return nil
}

// Lookup returns what the watcher knows of one job: its status as last
// read ("" before the first read or after a 404), its pull request ("" when
// none) and whether it has been read.
func (w *Watcher) Lookup(project, id string) (status client.JobStatus, prLink string, known bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.projects[project]; p != nil {
		if e := p.jobs[id]; e != nil && e.job != nil {
			return e.job.Status, deref(e.job.PRLink), true
		}
	}
	return "", "", false
}

// Run polls at once, then PollInterval after the end of each round (or at
// once when Watch added a job), until ctx is done.
func (w *Watcher) Run(ctx context.Context) {
	t := time.NewTimer(w.cfg.PollInterval)
	defer t.Stop()
	for ctx.Err() == nil {
		w.Poll(ctx)
		t.Reset(w.cfg.PollInterval)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
		}
	}
}

// checkFile re-reads --jobs.file when it changed, logging a problem once.
func (w *Watcher) checkFile() {
	if w.file == nil {
		return
	}
	changed, err := w.loadFile()
	if err != nil {
		if w.fileErr.Failed(err.Error()) {
			level.Warn(w.cfg.Logger).Log("msg", "cannot use the jobs file; keeping the last good list of jobs", "file", w.file.Path(), "err", err)
		}
		return
	}
	w.fileErr.Recovered()
	if changed {
		level.Info(w.cfg.Logger).Log("msg", "jobs file re-read", "file", w.file.Path(), "jobs", len(w.fileRefs))
	}
}

// updateMembership sets why each job is watched from the --jobs.id ids, the
// file's last good list and, when listed is not nil, the v1 listing of the
// projects it has a key for; jobs that no longer have a reason are dropped.
// The caller holds w.mu, or w is not shared yet.
func (w *Watcher) updateMembership(listed map[string][]client.LegacySession) {
	for _, p := range w.projects {
		for _, e := range p.jobs {
			e.named, e.listed = false, false
		}
	}
	for _, r := range slices.Concat(w.static, w.fileRefs) {
		w.entry(r).named = true
	}
	for project, sessions := range listed {
		for _, s := range sessions { // the client skips (and counts) a session without an id
			if err := checkJobID(s.SessionID); err != nil {
				if k := [3]string{"id", project, s.SessionID}; !w.logged[k] {
					w.logged[k] = true
					level.Warn(w.cfg.Logger).Log("msg", "ignoring a session of the v1 listing whose id cannot be read", "project", project, "err", err)
				}
				continue
			}
			e := w.entry(jobRef{project, s.SessionID})
			e.discovered, e.listed = true, true
			hint := s.Status()
			// A listed status that changed and disagrees with the last read
			// (a follow-up message made a completed job active again) makes
			// the job due now instead of at its terminal interval.
			if hint != e.hint && e.job != nil && e.job.Status != hint {
				e.nextRead = time.Time{}
			}
			e.hint = hint
		}
	}
	for _, p := range w.projects {
		_, wasListed := listed[p.id]
		for id, e := range p.jobs {
			keepDiscovered := e.discovered && !(e.gone && wasListed && !e.listed)
			if !e.named && !e.added && !keepDiscovered {
				delete(p.jobs, id)
			}
		}
	}
}

// entry returns the entry of a job of a configured project, made if new; the
// caller holds w.mu.
func (w *Watcher) entry(r jobRef) *jobsEntry {
	jobs := w.projects[r.project].jobs
	if jobs[r.id] == nil {
		jobs[r.id] = &jobsEntry{}
	}
	return jobs[r.id]
}

// Poll runs one round: it re-reads a changed --jobs.file, lists every project's jobs when
// discovering, then reads the jobs due (non-terminal every PollInterval, terminal every
// terminal interval), skipping projects paused after a 429. Each project's round is reported
// to the Status; a job that answers 404 does not fail it.
func (w *Watcher) Poll(ctx context.Context) {
	w.pollMu.Lock()
	defer w.pollMu.Unlock()
	start := w.cfg.Now()

	w.checkFile() // only Poll touches the file, under pollMu
	w.mu.Lock()
	var active []*jobsRound
	for _, id := range w.order {
		if !start.Before(w.projects[id].pausedUntil) {
			active = append(active, &jobsRound{project: id})
		}
	}
	w.mu.Unlock()

	var listed map[string][]client.LegacySession
	if w.cfg.Discover {
		listed = w.discover(ctx, active)
	}

	w.mu.Lock()
	w.updateMembership(listed)
	var reads []jobsRead
	for _, r := range active { // readAll skips the rounds stopped
		p := w.projects[r.project]
		for _, id := range slices.Sorted(maps.Keys(p.jobs)) {
			if !start.Before(p.jobs[id].nextRead) {
				reads = append(reads, jobsRead{round: r, id: id})
			}
		}
	}
	w.mu.Unlock()

	w.readAll(ctx, start, reads)
	if ctx.Err() != nil {
		return
	}
	w.finish(start, active)
}

// discover lists the jobs of the rounds' projects through the v1 listing (a failed one is absent
// from the result). A failed listing fails the round; whether the known jobs are still read is
// failed's to say.
func (w *Watcher) discover(ctx context.Context, rounds []*jobsRound) map[string][]client.LegacySession {
	listed := make(map[string][]client.LegacySession)
	for _, r := range rounds {
		sessions, skipped, err := w.cfg.Client.ListJobsV1Counting(ctx, r.project)
		w.mu.Lock()
		if p := w.projects[r.project]; err != nil {
			w.failed(r, "", err)
		} else {
			if p.skipped == 0 && skipped > 0 {
				level.Warn(w.cfg.Logger).Log("msg", "skipped malformed sessions of the v1 job listing (counted in mintlify_agent_sessions_skipped_total; logged once)", "project", r.project, "sessions", skipped)
			}
			p.skipped += float64(skipped)
			listed[r.project] = sessions
		}
		w.mu.Unlock()
	}
	return listed
}

// finish reports every project's round to the Status and logs changes of
// state.
func (w *Watcher) finish(start time.Time, rounds []*jobsRound) {
	end := w.cfg.Now()
	dur := end.Sub(start)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range rounds {
		p := w.projects[r.project]
		if r.err == nil {
			if p.errs.Recovered() {
				level.Info(w.cfg.Logger).Log("msg", "agent jobs polled successfully again", "project", p.id)
			}
			p.limited = 0
			w.cfg.Status.SetInterval(p.id, Source, "", health.PartAll, w.cfg.PollInterval)
			w.cfg.Status.Succeeded(p.id, Source, "", health.PartAll, end, dur)
			continue
		}
		state, msg := r.err.Error(), "polling agent jobs failed; the last known state of each job stays exported"
		if _, _, limited := client.IsRateLimited(r.err); limited {
			state, msg = "rate limited", "agent job polling rate limited by the API; the project's job requests are paused, the last known state of each job stays exported"
		}
		if p.errs.Failed(state) {
			kv := []any{"msg", msg, "project", p.id}
			if r.errJob != "" {
				kv = append(kv, "job_id", r.errJob)
			}
			if end.Before(p.pausedUntil) {
				kv = append(kv, "paused_until", p.pausedUntil.UTC().Format(time.RFC3339))
			}
			level.Error(w.cfg.Logger).Log(append(kv, "err", r.err)...)
		}
		w.cfg.Status.Failed(p.id, Source, "", health.PartAll, dur)
	}
}
