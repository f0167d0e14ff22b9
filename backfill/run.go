package backfill

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// Exit codes of the backfill command.
const (
	ExitOK          = 0   // complete, or the plan of a dry run printed
	ExitError       = 1   // a usage error, or an error no retry can fix
	ExitIncomplete  = 2   // some fetches failed; Resume retries them
	ExitInterrupted = 130 // the context ended; Resume continues
)

// A fetch is tried DefaultAttempts times, beyond the client's own retries
// (the second after 30 s, doubling), and waits out maxRateLimited 429s.
const (
	DefaultAttempts = 3
	maxRateLimited  = 10
)

// Config configures a backfill run.
type Config struct {
	// From..To are the days, both included; a zero To is yesterday (UTC).
	From, To client.Date
	// Output is the OpenMetrics file to write (journal: JournalPath), or
	// RemoteWrite sends the samples (journal: Journal, then required).
	Output      string
	RemoteWrite *RemoteWriter
	Journal     string
	// Labels are the target labels every series carries (MergeLabels).
	Labels []Label
	// Pages fetches full walks with per-page series, not site figures.
	Pages  bool
	DryRun bool
	// Protected maps flags to files never to replace (the API key file...).
	Protected map[string]string
	// Resume continues the journal; Force starts over. Without either, an
	// existing output or journal is an error.
	Resume, Force bool
	// CacheFile is --cache.file, whose day store gets the additive days.
	CacheFile string

	// Sources are built on a client whose Allow hook is Budget.Allow;
	// Projects are never empty (the command refuses that before Run).
	Sources  []engine.Source
	Projects []string
	Budget   *budget.Budget
	// Args are the other arguments a resume must repeat (API address...).
	Args []string

	// Now and WaitUntil (until Now reads t) default to real time.
	Now       func() time.Time
	WaitUntil func(ctx context.Context, t time.Time) error
	// Out receives the plan and report, Progress the progress (a bar when
	// Terminal); nil discards.
	Out, Progress io.Writer
	Terminal      bool
}

// Failure is a fetch that failed after its retries.
type Failure struct {
	Day             client.Date
	Source, Project string
	Err             error
}

// Result is what a run did.
type Result struct {
	Days, Fetches int // Fetches = days × sources × projects
	// Skipped: the sources without site-wide figures (left out unless Pages).
	Sources, Skipped []string
	// Resumed fetches were journaled; Requests are those of finished fetches.
	Resumed, Fetched, Requests int
	Seeded                     int // days added to CacheFile's day store
	Failed                     []Failure
	Interrupted                bool
	// Samples and WriteRequests are what this run sent by remote write.
	Samples, WriteRequests int
}

// ExitCode is the command's exit code for a run that returned r and err.
func ExitCode(r *Result, err error) int {
	switch {
	case r != nil && r.Interrupted:
		return ExitInterrupted
	case err != nil:
		return ExitError
	case r != nil && len(r.Failed) > 0:
		return ExitIncomplete
	}
	return ExitOK
}

type fetch struct {
	day     client.Date
	src     engine.Source
	project string
}

// Run prints the plan and its cost and, unless DryRun, fetches what the
// journal lacks and writes the output. The Result is nil if nothing started.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.WaitUntil == nil {
		cfg.WaitUntil = func(ctx context.Context, t time.Time) error { return client.DefaultSleep(ctx, t.Sub(cfg.Now())) }
	}
	cfg.Out = cmp.Or(cfg.Out, io.Discard)
	cfg.Progress = cmp.Or(cfg.Progress, io.Discard)
	switch { // the arguments that need no file or clock
	case cfg.Output == "" && cfg.RemoteWrite == nil:
		return nil, errors.New("--output is required: the OpenMetrics file to write, such as history.om (or --remote-write.url to send the samples by remote write)")
	case cfg.Output != "" && cfg.RemoteWrite != nil:
		return nil, errors.New("--output and --remote-write.url exclude each other: write a file for promtool, or send by remote write")
	case cfg.Resume && cfg.Force:
		return nil, errors.New("--resume and --force exclude each other: --resume continues the journal, --force starts over")
	case len(cfg.Sources) == 0:
		return nil, errors.New("no analytics source is enabled: enable one with --collector.<name>")
	}
	days, err := Days(cfg.From, cfg.To, cfg.Now())
	if err != nil {
		return nil, err
	}
	res := &Result{Days: len(days)}
	own := map[string][]string{} // each family's own label names
	var sources []engine.Source  // those that support the run's window
	for _, s := range cfg.Sources {
		for _, f := range s.Families() {
			own[f.Name] = f.Labels
		}
		if s.Supports(unitWindow(cfg.Pages)) {
			sources, res.Sources = append(sources, s), append(res.Sources, s.Name())
		} else {
			res.Skipped = append(res.Skipped, s.Name())
		}
	}
	if err := checkLabels(cfg.Labels, own); err != nil {
		return nil, err
	}
	switch {
	case len(sources) > 0:
	case cfg.Pages:
		return nil, fmt.Errorf("none of the enabled sources (%s) has a one-day unit", strings.Join(res.Skipped, ", "))
	default:
		return nil, fmt.Errorf("none of the enabled sources (%s) has site-wide figures: add --backfill.pages for their per-page series", strings.Join(res.Skipped, ", "))
	}
	// The arguments a resume must repeat.
	args := []string{
		"--from=" + days[0].String(), "--to=" + days[len(days)-1].String(),
		fmt.Sprintf("--backfill.pages=%v", cfg.Pages),
		"projects=" + strings.Join(cfg.Projects, ","),
		"sources=" + strings.Join(res.Sources, ","),
	}
	for _, l := range cfg.Labels {
		args = append(args, "--backfill.label="+l.Name+"="+l.Value)
	}
	if cfg.RemoteWrite != nil {
		args = append(args, "--remote-write.url="+cfg.RemoteWrite.id)
	}
	args = append(args, cfg.Args...)
	// The output and journal must be files that may be written.
	jpath, files := cfg.Journal, [][2]string{{"--remote-write.journal " + cfg.Journal, cfg.Journal}}
	if cfg.RemoteWrite == nil {
		jpath = JournalPath(cfg.Output)
		files = [][2]string{{"--output " + cfg.Output, cfg.Output}, {"the journal of --output, " + jpath, jpath}}
	}
	if st, err := os.Stat(filepath.Dir(files[0][1])); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: the directory %s does not exist", files[0][0], filepath.Dir(files[0][1]))
	}
	for _, f := range files {
		if err := checkReplaceable(f[1], cfg.Protected); err != nil {
			return nil, fmt.Errorf("%s: %v", f[0], err)
		}
	}
	if cfg.CacheFile != "" && !cfg.DryRun {
		// The exporter's next save would drop the days added beside it.
		lock, err := statefile.Lock(cfg.CacheFile)
		if errors.Is(err, statefile.ErrLocked) {
			return nil, fmt.Errorf("--cache.file=%s is in use by a running exporter (PID %s): stop it, run backfill, then start it again (its next save would drop the days added), or leave out --cache.file", cfg.CacheFile, statefile.Holder(cfg.CacheFile+statefile.LockSuffix))
		}
		if err != nil {
			return nil, fmt.Errorf("--cache.file=%s: %w", cfg.CacheFile, err)
		}
		defer lock.Unlock()
	}
	prior, refusal, err := cfg.priorRun(jpath, args)
	if err != nil {
		return nil, err
	}
	if refusal != nil && !cfg.DryRun {
		return nil, refusal
	}
	var todo []fetch
	for _, d := range days {
		for _, s := range sources {
			for _, p := range cfg.Projects {
				if !prior.fetched[key{d.String(), s.Name(), p}] {
					todo = append(todo, fetch{d, s, p})
				}
			}
		}
	}
	res.Fetches = len(days) * len(sources) * len(cfg.Projects)
	res.Resumed = res.Fetches - len(todo)
	printPlan(cfg, res, len(todo))
	if cfg.DryRun {
		if refusal != nil {
			fmt.Fprintf(cfg.Out, "note: a real run would stop here: %v\n", refusal)
		}
		return res, nil
	}

	j, err := openJournal(jpath, args, prior)
	if err != nil {
		return nil, err
	}
	defer j.f.Close()
	// Requests the journal says were sent within the hour still count.
	var sent []time.Time
	for _, e := range j.entries {
		sent = append(sent, slices.Repeat([]time.Time{e.At}, max(e.Requests, 0))...)
	}
	cfg.Budget.Restore(sent, time.Time{})
	r := &runner{cfg: cfg, res: res, journal: j, todo: todo}
	cfg.Budget.Pace(func(ctx context.Context, t time.Time) error {
		r.waiting(t, "the request budget")
		return cfg.WaitUntil(ctx, t)
	})
	runErr := r.run(ctx)
	if r.drawn {
		fmt.Fprintln(cfg.Progress) // end the bar line
	}
	if err := r.finish(runErr); err != nil {
		return res, err
	}
	printReport(cfg, res, len(j.entries), runErr)
	return res, runErr
}

// priorRun returns what the journal holds with Resume, and otherwise the
// refusal a real run stops on (a dry run prints it).
func (cfg Config) priorRun(jpath string, args []string) (prior journal, refusal, err error) {
	outExists := cfg.RemoteWrite == nil && exists(cfg.Output)
	switch {
	case cfg.Force:
	case cfg.Resume:
		data, err := os.ReadFile(jpath)
		switch {
		case err == nil:
			prior, err = parseJournal(jpath, data, args)
			return prior, nil, err
		case !errors.Is(err, os.ErrNotExist):
			return prior, nil, fmt.Errorf("reading the journal: %w", err)
		case outExists:
			return prior, nil, fmt.Errorf("--resume: %s has no journal (%s): that backfill finished; to write it again use --force", cfg.Output, jpath)
		case cfg.RemoteWrite != nil:
			// Nothing shows whether it finished: starting over would spend
			// the whole budget again on a mistyped path.
			return prior, nil, fmt.Errorf("--resume: there is no journal %s: nothing to resume (a finished remote-write backfill removes its journal); check --remote-write.journal, or run without --resume to start", jpath)
		}
	case exists(jpath):
		refusal = fmt.Errorf("an interrupted backfill left %s: add --resume (with the same arguments) to continue it, or --force to start over", jpath)
	case outExists:
		refusal = fmt.Errorf("--output %s exists: add --force to replace it, or choose another file", cfg.Output)
	}
	return prior, refusal, nil
}

// finish writes the output, seeds the day store and drops a spent journal.
func (r *runner) finish(runErr error) error {
	cfg, res, j := r.cfg, r.res, r.journal
	if cfg.RemoteWrite == nil {
		if err := writeAtomic(cfg.Output, func(w io.Writer) error { return render(w, j.entries, res.Sources, cfg.Labels) }); err != nil {
			return errors.Join(runErr, err)
		}
	}
	// Clean, a remote-write run sent all it journaled (each day as it ended).
	clean := runErr == nil && !res.Interrupted
	if cfg.CacheFile != "" && clean {
		n, err := seedDayStore(cfg, j.entries)
		if err != nil {
			return err
		}
		res.Seeded = n
		fmt.Fprintf(cfg.Out, "day store: %d days of additive sources added to --cache.file=%s (derived windows)\n", n, cfg.CacheFile)
	}
	if clean && len(res.Failed) == 0 && len(j.entries) == res.Fetches {
		j.f.Close()
		if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing the journal: %w", err)
		}
	}
	return nil
}

// checkReplaceable refuses a non-regular file (after links) or a protected one.
func checkReplaceable(path string, protected map[string]string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return errors.New("is a symbolic link to nothing; remove it or choose another file")
		}
	case err != nil:
		return err
	case st.IsDir():
		return errors.New("is a directory; give a file name, such as " + filepath.Join(path, "history.om"))
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%s); choose a regular file", st.Mode().Type())
	}
	abs, aerr := filepath.Abs(path)
	for flag, p := range protected {
		pabs, perr := filepath.Abs(p)
		if ps, err := os.Stat(p); p != "" && (err == nil && st != nil && os.SameFile(st, ps) || aerr == nil && perr == nil && abs == pabs) {
			return fmt.Errorf("is the file of %s; choose another file", flag)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// runner is a run in progress, shown as a bar on a terminal, else a line a day.
type runner struct {
	cfg       Config
	res       *Result
	journal   *journal
	todo      []fetch
	estimated bool      // the estimate from the first day was printed
	drawn     bool      // the bar is on screen
	waitNote  time.Time // the wait last reported on a non-terminal
}

// run does todo in order; a failed fetch goes to res.Failed, an error ends it.
func (r *runner) run(ctx context.Context) error {
	// What an interrupted run fetched but did not send goes first.
	if err := r.sendUnsent(ctx); err != nil || r.res.Interrupted {
		return err
	}
	for i, f := range r.todo {
		e, err := r.fetch(ctx, f)
		switch {
		case ctx.Err() != nil:
			r.res.Interrupted = true
			return nil
		case err != nil && fatal(err):
			return fmt.Errorf("%s %s %s: %s; fix it and run again with --resume: no finished day is asked again",
				f.day, f.src.Name(), f.project, engine.Advice(err))
		case err != nil:
			r.note(fmt.Sprintf("%s %s %s failed after %d attempts: %v", f.day, f.src.Name(), f.project, DefaultAttempts, err))
			r.res.Failed = append(r.res.Failed, Failure{Day: f.day, Source: f.src.Name(), Project: f.project, Err: err})
		default:
			if err := r.journal.writeJSON(e); err != nil {
				return err
			}
			r.journal.entries = append(r.journal.entries, e)
			r.res.Fetched++
			r.res.Requests += e.Requests
		}
		last := i == len(r.todo)-1 || r.todo[i+1].day != f.day
		r.fetched(f, last)
		if last {
			if err := r.sendUnsent(ctx); err != nil || r.res.Interrupted {
				return err
			}
		}
	}
	return nil
}

// fatal: no other day would fare better (401, 403, 404, a refused certificate).
func fatal(err error) bool {
	return client.IsRefused(err) || client.IsNotFound(err) || client.IsCertificateError(err)
}

// fetch fetches one unit, retrying failures and waiting out 429 pauses.
func (r *runner) fetch(ctx context.Context, f fetch) (*entry, error) {
	u := engine.Unit{Source: f.src.Name(), Project: f.project, Window: unitWindow(r.cfg.Pages)}
	rng := client.DateRange{From: f.day, To: f.day.AddDays(1)}
	attempts, limited := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if until := r.cfg.Budget.PausedUntil(); !until.IsZero() {
			r.waiting(until, "the end of the rate-limit pause")
			if err := r.cfg.WaitUntil(ctx, until); err != nil {
				return nil, err
			}
		}
		out, err := f.src.Fetch(ctx, u, rng, 0)
		if err == nil {
			return newEntry(f, out, r.cfg.Now()), nil
		}
		if ctx.Err() != nil || fatal(err) {
			return nil, err
		}
		if ra, has, ok := client.IsRateLimited(err); ok {
			if limited++; limited > maxRateLimited {
				return nil, err
			}
			if !has || ra <= 0 { // none, or already past: asking again at once spends a request on another 429
				ra = backoff.BackfillRateLimit.Delay(limited)
			}
			until := r.cfg.Now().Add(min(ra, client.MaxRateLimitPause))
			r.cfg.Budget.Pause(until)
			r.note(fmt.Sprintf("the API answered 429 (rate limit, %d analytics requests per organization per hour): pausing every request until %s",
				client.AnalyticsRequestsPerHour, until.UTC().Format(time.RFC3339)))
			continue
		}
		if attempts++; attempts >= DefaultAttempts {
			return nil, err
		}
		delay := backoff.Policy{Base: 30 * time.Second, Max: time.Hour}.Delay(attempts)
		if err := r.cfg.WaitUntil(ctx, r.cfg.Now().Add(delay)); err != nil {
			return nil, err
		}
	}
}

func newEntry(f fetch, out *engine.Result, at time.Time) *entry {
	e := &entry{Day: f.day.String(), Source: f.src.Name(), Project: f.project, Requests: out.Cost, At: at.UTC()}
	fams := f.src.Families()
	for i, fam := range fams[:min(len(fams), len(out.Samples))] {
		jf := family{Name: fam.Name, Help: fam.Help, Labels: append([]string{}, fam.Labels...), Series: make([]series, 0, len(out.Samples[i]))}
		for _, s := range out.Samples[i] {
			jf.Series = append(jf.Series, series{L: slices.Clone(s.Labels[:len(fam.Labels)]), V: formatValue(s.Value)})
		}
		e.Families = append(e.Families, jf)
	}
	return e
}
