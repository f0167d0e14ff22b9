package engine

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/derive"
)

// Summer is implemented by a source whose counts add up over days, so that
// its windows can be derived from the day store (docs/dev/design.md, "Derived windows").
type Summer interface {
	// Additive reports whether u's window is the sum of its days: false
	// for top-N lists.
	Additive(u Unit) bool
	// Sum returns u's window from its 1d results, one per day, oldest first.
	Sum(u Unit, days []*Result) *Result
}

// Derived windows.
const (
	// auditEvery is how often a derived window is compared with a direct read.
	auditEvery = 24 * time.Hour
)

var (
	driftDesc = prometheus.NewDesc("mintlify_derived_window_drift_ratio",
		"Relative difference between the last direct read of a derived window and the sum of its days.",
		[]string{"project", "source", "window"}, nil)
	derivedDesc = prometheus.NewDesc("mintlify_derived_window",
		"1 when the window is exported as the sum of its days, 0 when it is read directly.",
		[]string{"project", "source", "window"}, nil)
)

// dayKey is the day store's key of a unit's day.
func dayKey(u *unit, day client.Date) derive.Key {
	return derive.Key{Source: u.src, Project: u.Project, Site: u.Window.Site, Day: day}
}

// closedKeys returns the day store's keys of u's closed days, oldest first.
func closedKeys(u *unit, now time.Time) []derive.Key {
	days := derive.ClosedDays(u.Window.Days, now)
	out := make([]derive.Key, len(days))
	for i, d := range days {
		out[i] = dayKey(u, d)
	}
	return out
}

// keepProvisionalLocked keeps the 1d data of the day that just ended, when
// the new day replaces it, as that day's provisional entry.
func (e *Engine) keepProvisionalLocked(b *unit, next *snapshot) {
	if !e.cfg.DeriveWindows || b.snap == nil || b.snap.rng == next.rng || !e.isBaseLocked(b) {
		return
	}
	day := b.snap.rng.From
	if b.snap.rng.To != day.AddDays(1) || day.AddDays(1) != next.rng.From {
		return // not yesterday's 1d data
	}
	e.days.KeepProvisional(dayKey(b, day), b.snap.res, b.snap.completed)
}

// unsettledLocked reports whether a closed day of u is provisional or due a
// second read: an audit then would compare with days about to be replaced.
func (e *Engine) unsettledLocked(u *unit, now time.Time) bool {
	return e.days.Unsettled(closedKeys(u, now), now)
}

// linkDerivable links every derivable window to its base, the matching 1d unit.
func (e *Engine) linkDerivable() {
	if !e.cfg.DeriveWindows {
		return
	}
	for _, u := range e.units {
		sum, ok := e.sources[u.src].src.(Summer)
		if !ok || u.Window.Days < 2 || !sum.Additive(u.Unit) {
			continue
		}
		for _, b := range e.units {
			if b.src == u.src && b.Project == u.Project && b.Window.Days == 1 && b.Window.Site == u.Window.Site {
				u.base = b
			}
		}
	}
}

// isBaseLocked reports whether b is the base of a derivable window.
func (e *Engine) isBaseLocked(b *unit) bool {
	for _, u := range e.units {
		if u.base == b {
			return true
		}
	}
	return false
}

// coveredLocked reports whether the store holds all u's closed days and its
// base has today's data.
func (e *Engine) coveredLocked(u *unit, now time.Time) bool {
	b := u.base
	if b == nil || u.fallback != "" || b.snap == nil || b.snap.rng != b.Window.Range(now) {
		return false
	}
	return e.days.Covers(closedKeys(u, now))
}

// deriveLocked re-renders the covered derivable windows of base (all when nil).
func (e *Engine) deriveLocked(now time.Time, base *unit) {
	changed := false
	for _, u := range e.units {
		if base != nil && u.base != base {
			continue
		}
		if u.derived && u.fallback == "" && u.base.snap != nil && u.base.snap.rng != u.base.Window.Range(now) {
			continue // its base has yet to read the new day: the window waits for it, derived
		}
		if !e.coveredLocked(u, now) {
			u.derived = false
			continue
		}
		res := e.sumLocked(u, now, true)
		snap := &snapshot{rng: u.Window.Range(now), res: res, completed: u.base.snap.completed, rendered: e.render(u, res), derived: true}
		if !u.derived {
			level.Info(e.logger).Log("msg", "window derived from the day store from now on: no requests of its own", "collector", u.Source, "project", u.Project, "window", u.Window.String())
		}
		u.snap, u.derived, u.attempted = snap, true, true
		u.failures, u.lastErr, u.retryAt = 0, "", time.Time{}
		u.errs.Recovered()
		e.cfg.Status.Succeeded(u.Project, u.Source, u.Window.Name, e.statusPart(u), snap.completed, 0)
		changed = true
	}
	if changed {
		e.publishLocked()
	}
}

// sumLocked sums u's closed days, and its base's today when today is set.
func (e *Engine) sumLocked(u *unit, now time.Time, today bool) *Result {
	var parts []*Result
	for _, k := range closedKeys(u, now) {
		parts = append(parts, e.days[k].Result)
	}
	if today {
		parts = append(parts, u.base.snap.res)
	}
	res := e.sources[u.src].src.(Summer).Sum(u.Unit, parts)
	res.Cost = 0
	res.Summary = fmt.Sprintf("derived: %d closed days and today", len(parts)-1)
	return res
}

// dayUnitsLocked returns the units that read closed days into the store,
// in derive.Store.Tasks' order, those in progress first. A closed day's
// unit is an ordinary unit of its 1d unit's source with the day's fixed
// range, worth 0.05 for the day that just ended (its provisional data
// stands in) and 0.02 for history and second reads, per request: below
// any unit's first data of up to 25 requests. It is dropped once its day
// is stored, and kept while it backs off.
func (e *Engine) dayUnitsLocked(now time.Time) []*unit {
	var want []derive.Key
	base := map[derive.Key]*unit{}
	for _, u := range e.units {
		if u.base == nil || u.fallback != "" {
			continue
		}
		for _, k := range closedKeys(u, now) {
			want = append(want, k)
			if base[k] == nil {
				base[k] = u.base
			}
		}
	}
	var running, waiting []*unit
	keep := map[derive.Task]*unit{}
	yesterday := client.DateOf(now).AddDays(-1)
	for _, t := range e.days.Tasks(want, now) {
		u := e.dayUnits[t]
		if u == nil {
			b := base[t.Key]
			rng := client.DateRange{From: t.Key.Day, To: t.Key.Day.AddDays(1)}
			u = &unit{Unit: b.Unit, src: b.src, base: b, fixed: &fixedRange{rng: rng, done: func(u *unit, res *Result, err error, now time.Time) {
				e.finishDay(t, u, res, err, now)
			}}}
		}
		u.fixed.worth = 0.02
		if t.Key.Day == yesterday && !t.Reread {
			u.fixed.worth = 0.05
		}
		keep[t] = u
		if u.job != nil {
			running = append(running, u)
		} else {
			waiting = append(waiting, u)
		}
	}
	for k, u := range e.dayUnits {
		if keep[k] == nil && u.job != nil {
			keep[k] = u
			running = append(running, u)
		}
	}
	e.dayUnits = keep
	return append(running, waiting...)
}

// pruneDaysLocked drops days no window needs any more.
func (e *Engine) pruneDaysLocked(now time.Time) {
	keep := map[derive.Key]bool{}
	for _, u := range e.units {
		if u.base == nil {
			continue
		}
		for _, k := range closedKeys(u, now) {
			keep[k] = true
		}
	}
	e.days.Prune(keep)
}

// finishDay stores the day a closed day's unit read, or backs the unit off;
// a changed second read is counted.
func (e *Engine) finishDay(t derive.Task, u *unit, res *Result, err error, now time.Time) {
	if err == nil {
		err = e.check(u, res)
	}
	e.mu.Lock()
	defer func() {
		u.inFlight = false
		e.changedLocked()
		e.mu.Unlock()
	}()
	if err != nil {
		if e.ctx.Err() == nil {
			u.retryAt = now.Add(failureBackoffBase)
			level.Warn(e.logger).Log("msg", "reading a closed day into the day store failed; windows are read directly meanwhile", "collector", u.Source, "project", u.Project, "day", t.Key.Day.String(), "err", advice(err))
			if ra, has, ok := client.IsRateLimited(err); ok {
				if !has || ra <= 0 {
					ra = rateLimitBackoff.Delay(1)
				}
				e.cfg.Budget.Pause(now.Add(min(ra, client.MaxRateLimitPause)))
			}
		}
		return
	}
	if old := e.days[t.Key]; old != nil && t.Reread && !old.Provisional && family0(old.Result) != family0(res) {
		e.dayChanges.WithLabelValues(u.Source).Inc()
	}
	e.days.Put(t.Key, res, now, t.Reread)
	delete(e.dayUnits, t)
	e.deriveLocked(now, u.base)
	if e.cfg.OnChange != nil {
		go e.cfg.OnChange()
	}
}

// family0 sums a result's first family: the site-wide figure audits compare.
func family0(res *Result) float64 {
	if res == nil || len(res.Samples) == 0 {
		return 0
	}
	v := 0.0
	for _, s := range res.Samples[0] {
		v += s.Value
	}
	return v
}

// auditedWithTotals reports whether u is a derived page walk whose totals
// unit is derived too: the totals' audit of the site-wide figure stands for both.
func auditedWithTotals(u *unit) bool {
	return u.derived && u.totals != nil && u.totals.derived
}

// auditUnitsLocked returns the units that audit derived windows. An audit
// is an ordinary unit with a fixed range, the window's closed days, worth
// 0.5/days a request, due a day after the last audit (in an hour at the
// soonest while a closed day is provisional or due its second read: it is
// audited once its days are read for good). An audit whose day ended
// starts again.
func (e *Engine) auditUnitsLocked(now time.Time) []*unit {
	today := client.DateOf(now)
	var out []*unit
	for _, u := range e.units {
		a := e.audits[u]
		if !u.derived || auditedWithTotals(u) {
			if a != nil && a.job != nil {
				e.dropJobLocked(a.job) // read directly from now on, or audited with its totals
			}
			delete(e.audits, u)
			continue
		}
		if a == nil {
			a = &unit{Unit: u.Unit, src: u.src, pages: u.pages, fixed: &fixedRange{worth: 0.5 / float64(max(1, u.Window.Days)),
				done: func(a *unit, res *Result, err error, now time.Time) { e.finishAudit(u, a, res, err, now) }}}
			e.audits[u] = a
		}
		rng := client.DateRange{From: today.AddDays(-(u.Window.Days - 1)), To: today}
		if a.job != nil && a.fixed.rng != rng {
			e.dropJobLocked(a.job)
		}
		if a.job == nil {
			a.fixed.rng = rng
			a.retryAt = u.auditAt.Add(auditEvery)
			if e.unsettledLocked(u, now) && a.retryAt.Before(now.Add(auditEvery/24)) {
				a.retryAt = now.Add(auditEvery / 24)
			}
		}
		out = append(out, a)
	}
	return out
}

// finishAudit compares a's direct read of u with the sum of u's days; above
// derive.MaxDrift the window falls back to direct reads.
func (e *Engine) finishAudit(u, a *unit, res *Result, err error, now time.Time) {
	e.mu.Lock()
	defer func() {
		e.changedLocked()
		e.mu.Unlock()
	}()
	a.inFlight = false
	u.auditAt = now
	if err != nil || !u.derived || !e.coveredLocked(u, now) || a.fixed.rng.To != client.DateOf(now) {
		if err != nil && e.ctx.Err() == nil {
			u.auditAt = now.Add(-auditEvery + failureBackoffBase) // try again soon
			level.Warn(e.logger).Log("msg", "the audit of a derived window failed; it stays derived", "collector", u.Source, "project", u.Project, "window", u.Window.String(), "err", advice(err))
		}
		return
	}
	direct, derived := family0(res), family0(e.sumLocked(u, now, false))
	drift := derive.Drift(direct, derived)
	u.drift, u.audited = drift, true
	if drift > derive.MaxDrift {
		u.fallback = fmt.Sprintf("the sum of its days differs from a direct read by %.1f %%", 100*drift)
		u.derived = false
		level.Warn(e.logger).Log("msg", "a derived window does not add up: it is read directly from now on (events counted late, or the API draws day boundaries elsewhere than UTC midnight)",
			"collector", u.Source, "project", u.Project, "window", u.Window.String(), "direct", direct, "sum_of_days", derived, "drift_ratio", drift)
		// Eligible now for a direct read, and so is its page walk, audited with it.
		if p := u.pages; p != nil && p.derived {
			p.fallback, p.derived = u.fallback, false
		}
		e.publishLocked()
	}
}

// derivedCollector exports the derived-window families.
type derivedCollector struct{ e *Engine }

// Describe implements prometheus.Collector.
func (c derivedCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- derivedDesc
	ch <- driftDesc
}

// Collect implements prometheus.Collector.
func (c derivedCollector) Collect(ch chan<- prometheus.Metric) {
	for _, d := range c.e.live.Load().derived {
		v := 0.0
		if d.derived {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(derivedDesc, prometheus.GaugeValue, v, d.project, d.source, d.window)
		if d.audited {
			ch <- prometheus.MustNewConstMetric(driftDesc, prometheus.GaugeValue, d.drift, d.project, d.source, d.window)
		}
	}
}

// DayData is one closed day of the day store, as --cache.file keeps it.
type DayData struct {
	Source  string    `json:"source"`
	Project string    `json:"project"`
	Site    bool      `json:"site,omitempty"`
	Day     string    `json:"day"` // UTC, YYYY-MM-DD
	ReadAt  time.Time `json:"readAt"`
	Reread  bool      `json:"reread,omitempty"`
	Cost    int       `json:"cost"`
	// Families holds each family's series, by family name.
	Families map[string][]Sample `json:"families"`
}

// dayStateLocked returns the day store to persist, in a stable order.
func (e *Engine) dayStateLocked() []DayData {
	out := make([]DayData, 0, len(e.days))
	for k, de := range e.days {
		if de.Provisional {
			continue // read again after a restart
		}
		d := DayData{Source: e.sources[k.Source].src.Name(), Project: k.Project, Site: k.Site, Day: k.Day.String(),
			ReadAt: de.ReadAt, Reread: de.Reread, Cost: de.Result.Cost, Families: map[string][]Sample{}}
		for fi, f := range e.sources[k.Source].families {
			if fi < len(de.Result.Samples) && len(de.Result.Samples[fi]) > 0 {
				d.Families[f.Name] = de.Result.Samples[fi]
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b DayData) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Day, b.Day))
	})
	return out
}

// closedWithin reports whether day is one of derive.ClosedDays(n, now),
// without making the list.
func closedWithin(day client.Date, n int, now time.Time) bool {
	today := client.DateOf(now)
	t := day.Time()
	return t.Before(today.Time()) && !t.Before(today.AddDays(-(n - 1)).Time())
}

// restoreDaysLocked installs the persisted days this configuration needs.
func (e *Engine) restoreDaysLocked(days []DayData) int {
	if !e.cfg.DeriveWindows {
		return 0
	}
	now := e.now()
	n := 0
	for _, d := range days {
		day, err := client.ParseDate(d.Day)
		// Only closed days of the longest window can be of use.
		if err != nil || d.ReadAt.After(now) || !closedWithin(day, MaxWindowDays, now) {
			continue
		}
		for _, u := range e.units {
			if u.base == nil || e.sources[u.src].src.Name() != d.Source || u.Project != d.Project || u.Window.Site != d.Site ||
				!closedWithin(day, u.Window.Days, now) {
				continue
			}
			res, err := e.restoredResult(u.base, d.Families, d.Cost)
			if err != nil {
				level.Warn(e.logger).Log("msg", "ignoring a day of the cache file's day store", "collector", d.Source, "project", d.Project, "day", d.Day, "err", err)
				break
			}
			if k := dayKey(u, day); e.days[k] == nil {
				e.days.Put(k, res, d.ReadAt, d.Reread)
				n++
			}
			break
		}
	}
	// A page walk's day holds the site totals too, for a totals unit whose
	// own day is missing (an older cache file, or backfill's).
	for k, de := range e.days {
		site := k
		site.Site = true
		if k.Site || e.days[site] != nil {
			continue
		}
		for _, u := range e.units {
			if u.src == k.Source && u.Project == k.Project && u.Window.Site && u.base != nil && u.pages != nil {
				if res := e.siteWideOf(u, de.Result); res != nil {
					e.days[site] = &derive.Entry[*Result]{Result: res, ReadAt: de.ReadAt, Reread: de.Reread}
				}
				break
			}
		}
	}
	return n
}
