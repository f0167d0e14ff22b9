package derived

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Summer is implemented by a source whose counts add up over days, so that
// its windows can be derived from the day store.
type Summer interface {
	// Additive reports whether u's window is the sum of its days: false
	// for top-N lists.
	Additive(u engine.Unit) bool
	// Sum returns u's window from its 1d results, one per day, oldest first.
	Sum(u engine.Unit, days []*engine.Result) *engine.Result
}

const (
	// auditEvery is how often a derived window is compared with a direct read.
	auditEvery = 24 * time.Hour
	// grace is how long after UTC midnight a derived window waits for the
	// day that ended to reach the store before it is read directly.
	grace = 2 * time.Hour
	// retryAfter is when a failed audit is tried again.
	retryAfter = 30 * time.Second
)

var (
	driftDesc = prometheus.NewDesc("mintlify_derived_window_drift_ratio",
		"Relative difference between the last direct read of a derived window and the sum of its days.",
		[]string{"project", "source", "window"}, nil)
	derivedDesc = prometheus.NewDesc("mintlify_derived_window",
		"1 when the window is exported as the sum of its days, 0 when it is read directly.",
		[]string{"project", "source", "window"}, nil)
)

// Config configures a Layer.
type Config struct {
	Logger log.Logger
	// Days is the day store of the cache file, restored at Attach.
	Days []Day
}

// Layer derives windows; pass it as engine.Config.Layer.
type Layer struct {
	logger     log.Logger
	restore    []Day
	e          *engine.Engine
	dayChanges *prometheus.CounterVec

	mu      sync.Mutex
	windows []*window // derivable, in the engine's unit order
	byUnit  map[engine.Unit]*window
	days    Store[*engine.Result]
}

// window is a derivable window.
type window struct {
	engine.Unit
	base engine.Unit // the 1d unit summed with the closed days
	// For a split window: totals is a page walk's totals window, pages a
	// totals window's page walk, when derivable; split is set on both.
	totals, pages *window
	split         bool
	derived       bool             // its data is the sum
	served        client.DateRange // the range of the sum last served
	fellBack      bool             // read directly for good: its audit found drift
	auditAt       time.Time
	drift         float64
	audited       bool
}

// New returns a Layer; engine.New attaches it.
func New(cfg Config) *Layer {
	return &Layer{logger: cmp.Or(cfg.Logger, log.NewNopLogger()), restore: cfg.Days, byUnit: map[engine.Unit]*window{}, days: Store[*engine.Result]{},
		dayChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_derived_day_changes_total",
			Help: "Closed days of derived windows whose second read changed the site-wide figure.",
		}, []string{"source"})}
}

// Attach implements engine.Layer: it links every derivable window to its
// base, restores the day store and serves the windows it covers.
func (l *Layer) Attach(e *engine.Engine) {
	l.e = e
	states := e.States()
	l.mu.Lock()
	for _, st := range states {
		u := st.Unit
		sum, ok := e.Source(u.Source).(Summer)
		i := slices.IndexFunc(states, func(b engine.UnitState) bool {
			return b.Source == u.Source && b.Project == u.Project && b.Window.Days == 1 && b.Window.Site == u.Window.Site
		})
		if !ok || u.Window.Days < 2 || i < 0 || !sum.Additive(u) {
			continue
		}
		w := &window{Unit: u, base: states[i].Unit, split: st.Part != ""}
		l.windows, l.byUnit[u] = append(l.windows, w), w
	}
	for _, w := range l.windows {
		site := w.Unit
		site.Window.Site = true
		if t := l.byUnit[site]; w.split && !w.Window.Site && t != nil {
			w.totals, t.pages = t, w
		}
	}
	l.mu.Unlock()
	l.derive(e.Now(), nil, nil, func() { l.restoreDaysLocked(e.Now()) })
}

// closedKeys returns the day store's keys of w's closed days, oldest first.
func closedKeys(w *window, now time.Time) []Key {
	var out []Key
	for _, d := range ClosedDays(w.Window.Days, now) {
		out = append(out, Key{Source: w.Source, Project: w.Project, Site: w.Window.Site, Day: d})
	}
	return out
}

// Reads implements engine.Layer: the closed days to read into the store, in
// Store.Tasks' order, then the audits due.
func (l *Layer) Reads(now time.Time) []engine.Read {
	l.mu.Lock()
	defer l.mu.Unlock()
	var want []Key
	base := map[Key]engine.Unit{}
	for _, w := range l.windows {
		if w.fellBack {
			continue
		}
		for _, k := range closedKeys(w, now) {
			want, base[k] = append(want, k), w.base // one base per key
		}
	}
	var out []engine.Read
	today := client.DateOf(now)
	for _, t := range l.days.Tasks(want, now) {
		worth := 0.02
		if t.Key.Day == today.AddDays(-1) && !t.Reread {
			worth = 0.05
		}
		b := base[t.Key]
		out = append(out, engine.Read{Unit: b, Range: client.DateRange{From: t.Key.Day, To: t.Key.Day.AddDays(1)}, Worth: worth,
			Done: func(res *engine.Result, err error, now time.Time) { l.finishDay(t, b, res, err, now) }})
	}
	for _, w := range l.windows {
		if !w.derived || w.totals != nil && w.totals.derived {
			continue // a page walk is audited with its totals
		}
		rng := client.DateRange{From: today.AddDays(-(w.Window.Days - 1)), To: today}
		at := w.auditAt.Add(auditEvery)
		// Due in an hour at the soonest while a closed day is provisional or
		// due its second read: it is audited once its days are read for good.
		if l.days.Unsettled(closedKeys(w, now), now) && at.Before(now.Add(auditEvery/24)) {
			at = now.Add(auditEvery / 24)
		}
		out = append(out, engine.Read{Unit: w.Unit, Range: rng, Worth: 0.5 / float64(w.Window.Days), At: at, Totals: w.split && w.Window.Site,
			Done: func(res *engine.Result, err error, now time.Time) { l.finishAudit(w, rng, res, err, now) }})
	}
	return out
}

// Serves implements engine.Layer: a derived window is served, like its base;
// one that stops being derived without falling back waits for the day
// store until two hours after the midnight that ended its sum.
func (l *Layer) Serves(u engine.Unit) engine.Serving {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch w := l.byUnit[u]; {
	case w != nil && w.derived:
		return engine.Serving{On: true, Like: w.base}
	case w != nil && !w.fellBack && w.served != client.DateRange{}:
		return engine.Serving{From: w.served.To.Time().Add(grace)}
	}
	return engine.Serving{}
}

// Refreshed implements engine.Layer: a base's data of the day that just ended
// becomes that day's provisional entry; its windows are derived again.
func (l *Layer) Refreshed(u engine.Unit, prev, data engine.Data) {
	day := prev.Range.From
	l.derive(data.Completed, &u, map[engine.Unit]engine.Data{u: data}, func() {
		if slices.ContainsFunc(l.windows, func(w *window) bool { return w.base == u }) && prev.Result != nil && prev.Range != data.Range && prev.Range.To == day.AddDays(1) && day.AddDays(1) == data.Range.From {
			l.days.KeepProvisional(Key{Source: u.Source, Project: u.Project, Site: u.Window.Site, Day: day}, prev.Result, prev.Completed)
		}
		keep := map[Key]bool{} // the days windows still need
		for _, w := range l.windows {
			for _, k := range closedKeys(w, data.Completed) {
				keep[k] = true
			}
		}
		l.days.Prune(keep)
	})
}

// covered reports whether the store holds w's closed days and bd is today's.
func (l *Layer) covered(w *window, bd engine.Data, now time.Time) bool {
	return !w.fellBack && bd.Result != nil && bd.Range == w.base.Window.Range(now) && l.days.Covers(closedKeys(w, now))
}

// derive runs locked under the layer's lock, then serves the sums of the
// covered windows of base (all when nil), given the bases' data (the
// engine's when nil). The engine's lock is never taken under the layer's.
func (l *Layer) derive(now time.Time, base *engine.Unit, data map[engine.Unit]engine.Data, locked func()) {
	if data == nil {
		data = map[engine.Unit]engine.Data{}
		for _, w := range l.windows { // set at Attach: read without the lock
			data[w.base], _ = l.e.Data(w.base) // zero, as missing, when none
		}
	}
	var units []engine.Unit
	var sums []engine.Data
	l.mu.Lock()
	locked()
	for _, w := range l.windows {
		if base != nil && w.base != *base {
			continue
		}
		bd := data[w.base]
		if w.derived && bd.Range != w.base.Window.Range(now) {
			continue // its base has yet to read the new day: the window waits for it, derived
		}
		if !l.covered(w, bd, now) {
			w.derived = false
			continue
		}
		if !w.derived {
			level.Info(l.logger).Log("msg", "window derived from the day store from now on: no requests of its own", "collector", w.Source, "project", w.Project, "window", w.Window.String())
		}
		w.derived, w.served = true, w.Window.Range(now)
		units = append(units, w.Unit)
		sums = append(sums, engine.Data{Range: w.served, Result: l.sumLocked(w, now, bd.Result), Completed: bd.Completed})
	}
	l.mu.Unlock()
	for i, u := range units {
		l.e.Serve(u, sums[i])
	}
}

// sumLocked sums w's closed days, and today when set.
func (l *Layer) sumLocked(w *window, now time.Time, today *engine.Result) *engine.Result {
	var parts []*engine.Result
	for _, k := range closedKeys(w, now) {
		parts = append(parts, l.days[k].Result)
	}
	if today != nil {
		parts = append(parts, today)
	}
	res := l.e.Source(w.Source).(Summer).Sum(w.Unit, parts)
	res.Cost = 0
	res.Summary = fmt.Sprintf("derived: %d closed days and today", len(parts)-1)
	return res
}

// finishDay stores a closed day read of base, counting a changed second read.
func (l *Layer) finishDay(t Task, base engine.Unit, res *engine.Result, err error, now time.Time) {
	if err != nil {
		level.Warn(l.logger).Log("msg", "reading a closed day into the day store failed; windows are read directly meanwhile", "collector", base.Source, "project", base.Project, "day", t.Key.Day.String(), "err", engine.Advice(err))
		return
	}
	l.derive(now, &base, nil, func() {
		if old := l.days[t.Key]; old != nil && t.Reread && !old.Provisional && family0(old.Result) != family0(res) {
			l.dayChanges.WithLabelValues(base.Source).Inc()
		}
		l.days.Put(t.Key, res, now, t.Reread)
	})
}

// family0 sums a result's first family: the site-wide figure audits compare.
func family0(res *engine.Result) (v float64) {
	if res != nil && len(res.Samples) != 0 {
		for _, s := range res.Samples[0] {
			v += s.Value
		}
	}
	return v
}

// finishAudit compares a direct read of w's closed days (rng) with their
// sum; above MaxDrift the window falls back to direct reads.
func (l *Layer) finishAudit(w *window, rng client.DateRange, res *engine.Result, err error, now time.Time) {
	bd, _ := l.e.Data(w.base)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		w.auditAt = now.Add(-auditEvery + retryAfter) // try again soon
		level.Warn(l.logger).Log("msg", "the audit of a derived window failed; it stays derived", "collector", w.Source, "project", w.Project, "window", w.Window.String(), "err", engine.Advice(err))
		return
	}
	w.auditAt = now
	if !w.derived || !l.covered(w, bd, now) || rng.To != client.DateOf(now) {
		return
	}
	direct, summed := family0(res), family0(l.sumLocked(w, now, nil))
	w.drift, w.audited = Drift(direct, summed), true
	if w.drift <= MaxDrift {
		return
	}
	w.fellBack, w.derived = true, false
	level.Warn(l.logger).Log("msg", "a derived window does not add up: it is read directly from now on (events counted late, or the API draws day boundaries elsewhere than UTC midnight)",
		"collector", w.Source, "project", w.Project, "window", w.Window.String(), "direct", direct, "sum_of_days", summed, "drift_ratio", w.drift)
	// Its page walk, audited with it, is read directly too.
	if p := w.pages; p != nil && p.derived {
		p.fellBack, p.derived = true, false
	}
}

// Describe implements prometheus.Collector: mintlify_derived_window, its
// drift and the day changes, gathered at every scrape.
func (l *Layer) Describe(ch chan<- *prometheus.Desc) {
	ch <- derivedDesc
	ch <- driftDesc
	l.dayChanges.Describe(ch)
}

// Collect implements prometheus.Collector: a split window is one series.
func (l *Layer) Collect(ch chan<- prometheus.Metric) {
	l.dayChanges.Collect(ch)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.windows {
		if w.pages != nil {
			continue
		}
		derived, audited, drift := w.derived, w.audited, w.drift
		if t := w.totals; t != nil { // an unaudited drift is 0
			derived, audited, drift = derived && t.derived, audited || t.audited, max(drift, t.drift)
		}
		v := 0.0
		if derived {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(derivedDesc, prometheus.GaugeValue, v, w.Project, w.Source, w.Window.Name)
		if audited {
			ch <- prometheus.MustNewConstMetric(driftDesc, prometheus.GaugeValue, drift, w.Project, w.Source, w.Window.Name)
		}
	}
}
