package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// State is what the engine keeps across restarts (statefile's --cache.file).
type State struct {
	// Ledger and PausedUntil are the budget's (budget.Budget.Ledger).
	Ledger      []time.Time `json:"ledger"`
	PausedUntil time.Time   `json:"pausedUntil"`
	Units       []UnitData  `json:"units"`
	// Walks are the walks in progress, resumed after a restart if young enough.
	Walks []WalkData `json:"walks,omitempty"`
}

// WalkData is a unit's refresh walk in progress.
type WalkData struct {
	Source   string              `json:"source"`
	Project  string              `json:"project"`
	Window   string              `json:"window"`
	Started  time.Time           `json:"started"`
	Progress client.WalkProgress `json:"progress"`
}

// UnitData is one unit's last good data.
type UnitData struct {
	Source          string    `json:"source"`
	Project         string    `json:"project"`
	Window          string    `json:"window"` // "7d" or "7d:site"
	DateFrom        string    `json:"dateFrom"`
	DateTo          string    `json:"dateTo"`
	Completed       time.Time `json:"completed"`
	DurationSeconds float64   `json:"durationSeconds"`
	Cost            int       `json:"cost"`
	Summary         string    `json:"summary,omitempty"`
	// Families holds each family's series, by family name.
	Families map[string][]Sample `json:"families"`
}

// State returns the current state, to persist.
func (e *Engine) State() State {
	sent, paused := e.cfg.Budget.Ledger()
	st := State{Ledger: sent, PausedUntil: paused}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range e.units {
		if j := u.job; j != nil && j.progress != nil {
			st.Walks = append(st.Walks, WalkData{Source: u.Source, Project: u.Project, Window: u.Window.String(),
				Started: j.started, Progress: *j.progress})
		}
		if u.snap == nil {
			continue
		}
		d := UnitData{
			Source: u.Source, Project: u.Project, Window: u.Window.String(),
			DateFrom: u.snap.rng.From.String(), DateTo: u.snap.rng.To.String(),
			Completed: u.snap.completed, DurationSeconds: u.snap.duration.Seconds(),
			Cost: u.snap.res.Cost, Summary: u.snap.res.Summary,
			Families: map[string][]Sample{},
		}
		for fi, f := range e.sources[u.src].families {
			if fi < len(u.snap.res.Samples) && len(u.snap.res.Samples[fi]) > 0 {
				d.Families[f.Name] = u.snap.res.Samples[fi]
			}
		}
		st.Units = append(st.Units, d)
	}
	return st
}

// restoreLocked installs persisted state, ignoring units no longer configured.
func (e *Engine) restoreLocked(st *State) {
	budget.LogRestored(e.logger, "cache file", e.cfg.Budget.Restore(st.Ledger, st.PausedUntil))
	n, dropped := 0, 0
	for _, d := range st.Units {
		u := e.unitNamed(d.Source, d.Project, d.Window)
		if u == nil || u.snap != nil {
			continue
		}
		snap, err := e.restoredSnapshot(u, d, &dropped)
		if err != nil {
			level.Warn(e.logger).Log("msg", "ignoring a unit of the cache file", "unit", u.Unit.String(), "err", err)
			continue
		}
		u.snap, u.attempted = snap, true
		e.cfg.Status.Succeeded(u.Project, u.Source, u.Window.Name, e.statusPart(u), snap.completed, 0)
		n++
	}
	// A cache file from before windows were split holds the totals in
	// the page walk's data: they stand in for the totals unit's.
	for _, u := range e.units {
		if t := u.totals; t != nil && u.snap != nil && t.snap == nil {
			if res := SiteWide(e.sources[u.src].families, u.snap.res); res != nil {
				t.snap = &snapshot{rng: u.snap.rng, res: res, completed: u.snap.completed, rendered: e.render(t, res)}
				t.attempted = true
				e.cfg.Status.Succeeded(t.Project, t.Source, t.Window.Name, e.statusPart(t), u.snap.completed, 0)
			}
		}
	}
	walks := e.restoreWalksLocked(st.Walks)
	if dropped > 0 {
		level.Warn(e.logger).Log("msg", "dropped series of the cache file that an API answer could not have given (a duplicate, a negative, infinite or NaN value, or a label value that is not UTF-8 or longer than the API path keeps); the rest is restored",
			"series", dropped)
	}
	level.Info(e.logger).Log("msg", "restored state from the cache file", "units", n, "of", len(e.units),
		"walks_resumed", walks, "ledger_requests_last_hour", e.cfg.Budget.Used())
}

// unitNamed is the unit a cache file names, nil when none is configured (a
// map: a cache file of 64 MiB holds many units, a scan for each took seconds).
func (e *Engine) unitNamed(source, project, window string) *unit {
	w, _ := ParseWindow(window) // an invalid window names none
	return e.byUnit[Unit{Source: source, Project: project, Window: w}]
}

// MaxRestoredCost bounds a cost read from the cache file: a walk the engine
// runs sends at most client.DefaultMaxPages pages, so a larger cost is not
// one it wrote. Loops of the planner and the forecast are bounded by costs.
const MaxRestoredCost = client.DefaultMaxPages

// maxRestoredDuration bounds a refresh duration read from the cache file.
const maxRestoredDuration = MaxWindowDays * 24 * time.Hour

// maxSummaryBytes bounds a summary read from the cache file (the landing
// page shows it); the engine writes a short sentence.
const maxSummaryBytes = 256

// RestoredResult checks families persisted for a unit of src as the API path
// checks answers: it drops and counts series an answer could not have given.
func RestoredResult(src Source, families map[string][]Sample, cost int) (res *Result, dropped int, err error) {
	fams := src.Families()
	res = &Result{Samples: make([][]Sample, len(fams)), Cost: min(max(1, cost), MaxRestoredCost)}
	known := 0
	for fi, f := range fams {
		ss, ok := families[f.Name]
		if !ok {
			continue
		}
		known++
		for _, s := range ss {
			if slices.ContainsFunc(s.Labels[len(f.Labels):], func(l string) bool { return l != "" }) {
				return nil, dropped, fmt.Errorf("family %s: a sample has more labels than %v", f.Name, f.Labels)
			}
		}
		kept, n := validSamples(ss, len(f.Labels))
		dropped += n
		if len(kept) > 0 {
			res.Samples[fi] = kept
		}
	}
	if known != len(families) {
		return nil, dropped, errors.New("it holds families the source does not export")
	}
	return res, dropped, nil
}

// validSamples returns the samples of ss an API answer could have given,
// in their order, and how many it dropped: a value that is negative, NaN
// or infinite (the client refuses such counts), a label value that is not
// valid UTF-8 (the API path sanitizes it) or longer than
// client.MaxLabelBytes (the API path cuts it), and a repeated series (the
// API path keeps the first).
func validSamples(ss []Sample, labels int) ([]Sample, int) {
	seen := make(map[[MaxLabels]string]bool, len(ss))
	kept := make([]Sample, 0, len(ss))
	for _, s := range ss {
		// NaN and -Inf fail s.Value >= 0.
		if s.Value >= 0 && !math.IsInf(s.Value, 1) && !seen[s.Labels] && !slices.ContainsFunc(s.Labels[:labels], func(l string) bool {
			return len(l) > client.MaxLabelBytes || !utf8.ValidString(l)
		}) {
			seen[s.Labels] = true
			kept = append(kept, s)
		}
	}
	return kept, len(ss) - len(kept)
}

// SiteWide returns the site-wide families (of fams) of res, a page walk's
// result, as its totals unit's; nil when none has series.
func SiteWide(fams []Family, res *Result) *Result {
	out := &Result{Samples: make([][]Sample, len(res.Samples)), Cost: 1, Summary: "site-wide totals"}
	any := false
	for fi, f := range fams {
		if fi < len(res.Samples) && f.SiteWide && len(res.Samples[fi]) > 0 {
			out.Samples[fi], any = res.Samples[fi], true
		}
	}
	if !any {
		return nil
	}
	return out
}

// restoredSnapshot checks persisted data against u's source and renders it,
// adding the series it drops to dropped.
func (e *Engine) restoredSnapshot(u *unit, d UnitData, dropped *int) (*snapshot, error) {
	from, err := client.ParseDate(d.DateFrom)
	if err != nil {
		return nil, err
	}
	to, err := client.ParseDate(d.DateTo)
	if err != nil {
		return nil, err
	}
	if d.Completed.IsZero() {
		return nil, errors.New("no completion time")
	}
	// A completion after the clock would postpone the refresh.
	if now := e.cfg.Now(); d.Completed.After(now) {
		level.Warn(e.logger).Log("msg", "a unit of the cache file was completed after the clock reads; counting it as completed now",
			"unit", u.Unit.String(), "completed", d.Completed.UTC().Format(time.RFC3339), "now", now.UTC().Format(time.RFC3339))
		d.Completed = now
	}
	res, n, err := RestoredResult(e.sources[u.src].src, d.Families, d.Cost)
	*dropped += n
	if err != nil {
		return nil, err
	}
	// The summary is valid UTF-8 and short; the duration within what a
	// refresh can take, NaN or negative 0.
	if res.Summary = strings.ToValidUTF8(d.Summary, "\uFFFD"); len(res.Summary) > maxSummaryBytes {
		res.Summary = strings.ToValidUTF8(res.Summary[:maxSummaryBytes], "") + "…" // without the rune cut in two
	}
	if math.IsNaN(d.DurationSeconds) {
		d.DurationSeconds = 0
	}
	took := time.Duration(min(max(d.DurationSeconds, 0), maxRestoredDuration.Seconds()) * float64(time.Second))
	return &snapshot{rng: client.DateRange{From: from, To: to}, res: res, completed: d.Completed,
		duration: took, rendered: e.render(u, res)}, nil
}

// restoreWalksLocked resumes the cache file's refresh walks that are of today
// (UTC), started no later than now, for the range the unit's window reads
// now, and not expired (expiredLocked); it returns how many. The others
// start anew.
func (e *Engine) restoreWalksLocked(walks []WalkData) int {
	now, n := e.cfg.Now(), 0
	for _, d := range walks {
		u := e.unitNamed(d.Source, d.Project, d.Window)
		if u == nil || u.job != nil {
			continue
		}
		res, ok := e.sources[u.src].src.(Resumer)
		if !ok {
			continue
		}
		j, err := e.resumedJobLocked(u, res, d, now)
		if err != nil {
			level.Warn(e.logger).Log("msg", "not resuming a walk of the cache file; it starts again", "unit", u.Unit.String(), "err", err)
			continue
		}
		u.job = j
		n++
	}
	return n
}

// resumedJobLocked is the refresh job of u that d describes, or why not.
func (e *Engine) resumedJobLocked(u *unit, res Resumer, d WalkData, now time.Time) (*job, error) {
	switch {
	case d.Started.IsZero() || d.Started.After(now):
		return nil, fmt.Errorf("started %s, not before now (%s)", d.Started.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	case client.DateOf(d.Started) != client.DateOf(now):
		return nil, fmt.Errorf("started on %s, not today (UTC)", client.DateOf(d.Started))
	}
	rng := u.Window.Range(now)
	if got, err := d.Progress.Range(); err != nil || got != rng {
		return nil, fmt.Errorf("its date range is not the window's %s", rng)
	}
	prev := 0
	if u.snap != nil {
		prev, _ = e.estimateLocked(u, now)
	}
	w, err := res.Resume(u.Unit, d.Progress, prev)
	if err != nil {
		return nil, err
	}
	// totalsDone: the first page's totals were read before the restart,
	// too long ago to count as the totals unit's refresh now.
	j := &job{u: u, rng: rng, started: d.Started, walk: w, sent: w.Sent(), progress: &d.Progress, totalsDone: true}
	if e.expiredLocked(j, now) {
		return nil, fmt.Errorf("started %s ago with %d requests sent: too old to finish consistently", now.Sub(d.Started).Round(time.Second), w.Sent())
	}
	return j, nil
}
