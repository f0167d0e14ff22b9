package engine

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// The states of a unit (UnitState.State).
const (
	StateOK         = "ok"         // has data and is not due
	StateRefreshing = "refreshing" // sending requests
	// StateWaiting: due, waiting for the budget or a pause. Not a failure.
	StateWaiting = "waiting"
	// StateFailing: the last refresh failed; any previous data is served.
	StateFailing = "failing"
	StatePending = "pending" // never tried
)

var unitsWaitingDesc = prometheus.NewDesc("mintlify_units_waiting",
	"Windows of the source with no data yet that wait for the request budget.",
	[]string{"project", "source"}, nil)

// render renders a result's families for a unit: those it exports.
func (e *Engine) render(u *unit, res *Result) []exposition.Chunk {
	fams := e.sources[u.src].families
	out := make([]exposition.Chunk, len(fams))
	for i, f := range fams {
		if i < len(res.Samples) && u.exports(f) {
			out[i] = exposition.Series(f.Name, f.Labels, u.Project, u.Window.Name, res.Samples[i])
		}
	}
	return out
}

// exports reports whether u exports f: a totals unit only the site-wide
// families, its page walk the others, a whole unit all.
func (u *unit) exports(f Family) bool {
	switch {
	case u.pages != nil:
		return f.SiteWide
	case u.totals != nil:
		return !f.SiteWide
	}
	return true
}

// publishLocked swaps in a new exposition: per source, each family whole.
func (e *Engine) publishLocked() {
	x := &exposition.Exposition{}
	for si, s := range e.sources {
		for fi := range s.families {
			header := false
			for _, u := range e.units {
				if u.src != si || u.snap == nil || u.snap.rendered[fi].Empty() {
					continue
				}
				if !header { // a family without series is left out, as client_golang does
					x.Add(s.headers[fi])
					header = true
				}
				x.Add(u.snap.rendered[fi])
			}
		}
	}
	e.expo.Store(x)
}

// UnitState describes one unit for the landing page.
type UnitState struct {
	Unit
	State string // one of the State constants
	// Next is the expected next refresh (zero while it refreshes).
	Next time.Time
	// Range, Completed, Cost and Summary describe the last good data
	// (Completed zero before the first, Cost then an estimate).
	Range      client.DateRange
	Completed  time.Time
	Cost       int
	Summary    string
	Interval   time.Duration // planned
	Refreshing bool
	LastError  string // "" when the last refresh succeeded
	Deferred   string // what a waiting unit waits for
	Progress   string // of a walk: "3 of about 8 pages", or "9 pages so far, more than the 8 estimated"
	Rank       string // its place in the value order, "" when not due
	Part       string // health.PartTotals or PartPages in a split window, else ""
}

// States returns the state of every unit.
func (e *Engine) States() []UnitState {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.cfg.Now()
	out := make([]UnitState, len(e.units))
	for i, u := range e.units {
		cost, _ := e.estimateLocked(u, now)
		s := UnitState{Unit: u.Unit, Interval: u.interval, Refreshing: u.inFlight || u.job != nil, LastError: u.lastErr, Cost: cost, Rank: u.rank}
		if u.pages != nil || u.totals != nil { // a split window's
			s.Part = e.statusPart(u)
		}
		if u.job != nil && u.job.walk != nil {
			s.Progress = fmt.Sprintf("%d of about %d pages", u.job.sent, cost)
			if u.job.sent >= cost { // an estimate outgrown says so, rather than one page more each page
				s.Progress = fmt.Sprintf("%d pages so far, more than the %d estimated", u.job.sent, cost)
			}
		}
		if u.snap != nil {
			s.Range, s.Completed, s.Cost, s.Summary = u.snap.rng, u.snap.completed, u.snap.res.Cost, u.snap.res.Summary
		}
		switch {
		case u.inFlight:
			s.State = StateRefreshing
		case u.lastErr != "":
			s.State = StateFailing
		case u.waitAt.After(now):
			s.State = StateWaiting
		case u.job != nil:
			s.State = StateRefreshing
		case u.snap == nil:
			s.State = StatePending
		default:
			s.State = StateOK
		}
		if !u.inFlight {
			s.Next, _ = e.eligibleAtLocked(u, now)
			s.Next = maxTime(s.Next, u.dueAt)
			if u.waitAt.After(now) {
				s.Next = u.waitAt
				s.Deferred = "waiting for the request budget (1 request)"
				if n := min(cost, e.cfg.Budget.PerHour()); n != 1 {
					s.Deferred = fmt.Sprintf("waiting for the request budget (%d requests)", n)
				}
				if s.Progress != "" {
					s.Deferred = "waiting for the request budget; its walk has " + s.Progress
				}
				if u.waitWhy == "paused" {
					s.Deferred = "waiting for the API's rate-limit pause to end"
				}
			}
			s.Next = maxTime(s.Next, now)
		}
		out[i] = s
	}
	// A unit the Layer serves gets new data when the unit it is like does.
	next := make(map[Unit]time.Time, len(out))
	for _, s := range out {
		next[s.Unit] = s.Next
	}
	for i, u := range e.units {
		switch sv, p := e.servingLocked(u), u.pages; {
		case sv.On:
			if !next[sv.Like].IsZero() {
				out[i].Next = next[sv.Like]
			}
		case p != nil && p.job == nil && !p.inFlight && next[p.Unit].Before(out[i].Next):
			out[i].Next = next[p.Unit] // site totals come with the first page of their window's next walk too
		}
	}
	return out
}

// LiveCollectors returns the metrics gathered at every scrape: rows skipped,
// and mintlify_units_waiting (0 included) as of the engine's last change.
func (e *Engine) LiveCollectors() []prometheus.Collector {
	return []prometheus.Collector{e.skipped, prometheus.CollectorFunc(func(ch chan<- prometheus.Metric) {
		for _, w := range *e.live.Load() {
			ch <- prometheus.MustNewConstMetric(unitsWaitingDesc, prometheus.GaugeValue, float64(w.n), w.project, w.source)
		}
	})}
}

// liveCount is a project and source's units without data waiting for budget.
type liveCount struct {
	project, source string
	n               int
}

// changedLocked publishes the units' live state after a change: the counts
// of now, in unit order (the registry sorts what it gathers).
func (e *Engine) changedLocked() {
	var out []liveCount
	now := e.cfg.Now()
	for _, u := range e.units { // a project's units of a source are together
		if n := len(out); n == 0 || out[n-1].project != u.Project || out[n-1].source != u.Source {
			out = append(out, liveCount{project: u.Project, source: u.Source})
		}
		if u.snap == nil && u.waitAt.After(now) {
			out[len(out)-1].n++
		}
	}
	e.live.Store(&out)
}

// Describe implements prometheus.Collector for the sources' families.
func (e *Engine) Describe(ch chan<- *prometheus.Desc) {
	for _, s := range e.sources {
		for _, d := range s.descs {
			ch <- d
		}
	}
}

// Collect implements prometheus.Collector; the scrape handler serves the
// pre-rendered Exposition instead, with the same series.
func (e *Engine) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	results := make([][][]Sample, len(e.units)) // a unit's other fields never change
	for i, u := range e.units {
		if u.snap != nil {
			results[i] = u.snap.res.Samples
		}
	}
	e.mu.Unlock()
	for i, u := range e.units {
		s := e.sources[u.src]
		for fi, samples := range results[i] {
			if !u.exports(s.families[fi]) {
				continue
			}
			n := len(s.families[fi].Labels)
			for _, sm := range samples {
				lv := append([]string{u.Project, u.Window.Name}, sm.Labels[:n]...)
				m, err := prometheus.NewConstMetric(s.descs[fi], prometheus.GaugeValue, sm.Value, lv...)
				if err != nil {
					m = prometheus.NewInvalidMetric(s.descs[fi], err)
				}
				ch <- m
			}
		}
	}
}
