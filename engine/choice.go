package engine

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/schedule"
)

// CostEstimator is implemented by a source that knows a unit's cost before
// its first fetch; EstimateCost returns 0 when it does not.
type CostEstimator interface {
	EstimateCost(u Unit) int
}

// CostGrouper is implemented by sources whose units walk the same pages
// (visitors and views), so one's cost estimates the other's.
type CostGrouper interface {
	CostGroup() string
}

// unknownCost is the estimate of a unit nothing is known about (a walk of
// about 1,000 paths); it only orders the first round.
const unknownCost = 4

// estimateLocked is the expected cost of u's next refresh, and whether it is
// a bare guess. With data: its last cost, less the share that left a longer
// window at midnight (a 1d window keeps it: an estimate of 1 page would be
// outgrown at once, and the rule then counts the walk an hour's budget).
// Before: its CostEstimator, else the nearest sibling with data (same project
// and source, then cost group, then same window of another project). Walks
// are paced per request, so a low estimate never exceeds the budget.
func (e *Engine) estimateLocked(u *unit, now time.Time) (cost int, guess bool) {
	if u.fixed != nil {
		u = u.fixed.of // a fixed range costs what a read of its unit costs
	}
	if u.snap != nil && !u.snap.served {
		cost := u.snap.res.Cost
		if days := u.Window.Days; days > 1 && u.snap.rng != u.Window.Range(now) {
			cost = 1 + cost*(days-1)/days
		}
		return max(1, cost), false
	}
	if est, ok := e.sources[u.src].src.(CostEstimator); ok {
		if c := est.EstimateCost(u.Unit); c > 0 {
			return c, false
		}
	}
	group := e.sources[u.src].group
	siblings := []func(o *unit) bool{
		func(o *unit) bool { return o.src == u.src && o.Project == u.Project },
		func(o *unit) bool {
			return group != "" && e.sources[o.src].group == group && o.Project == u.Project
		},
		func(o *unit) bool { return o.src == u.src && o.Window == u.Window },
	}
	for _, sibling := range siblings {
		best, bestDist := 0, math.Inf(1)
		for _, o := range e.units {
			if o == u || o.snap == nil || o.snap.served || o.Window.Site != u.Window.Site || !sibling(o) {
				continue
			}
			d := math.Abs(math.Log(float64(max(1, o.Window.Days)) / float64(max(1, u.Window.Days))))
			switch c := o.snap.res.Cost; {
			case d < bestDist:
				best, bestDist = c, d
			case d == bestDist: // a tie goes to the larger cost: it bounds the other
				best = max(best, c)
			}
		}
		if best > 0 {
			return best, false
		}
	}
	return unknownCost, true
}

// minWalkAge is the least maxWalkAge: offset paging over changing data is
// only consistent within a walk that is not spread out too long.
const minWalkAge = 3 * time.Hour

// maxWalkAge is how long a walk of cost requests may run before it starts
// again: three hours, or twice what the whole budget takes to send it.
func maxWalkAge(cost, perHour int) time.Duration {
	return max(minWalkAge, time.Duration(2*float64(cost)/float64(max(1, perHour))*float64(time.Hour)))
}

// hourly is the age at which a one-request unit counts as having no data,
// while the budget allows it to every one of its window length or shorter.
const hourly = time.Hour

// walkLeft is the requests a fetch of cost has left after sent: a walk of
// unknown size as many as it sent (4 at first), one that outgrew its estimate
// an hour's budget, so that such walks go one at a time, not all half way.
func walkLeft(cost, sent int, guess bool, perHour int) int {
	switch {
	case guess && sent > 0:
		return max(unknownCost, sent)
	case cost-sent < 1:
		return max(1, perHour)
	}
	return cost - sent
}

// isWalkLocked reports whether u's fetch is a walk sent a request at a time.
func (e *Engine) isWalkLocked(u *unit) bool {
	st, ok := e.sources[u.src].src.(Stepper)
	return ok && st.Walks(u.Unit)
}

// cheapLocked reports whether u is site totals or a one-request unit.
func (e *Engine) cheapLocked(u *unit, cost int) bool {
	return u.pages != nil || (u.Window.Site && e.sources[u.src].splits) || (!e.isWalkLocked(u) && cost <= 1)
}

// hourlyDaysLocked is the longest window length whose one-request units,
// with those of shorter windows, fit two thirds of the hour's budget: those
// are held to an hour.
func (e *Engine) hourlyDaysLocked(now time.Time) int {
	byDays := map[int]int{}
	for _, u := range e.units {
		if c, _ := e.estimateLocked(u, now); !e.servedLocked(u) && e.cheapLocked(u, c) {
			byDays[u.Window.Days]++
		}
	}
	days, n := 0, 0
	for _, d := range slices.Sorted(maps.Keys(byDays)) {
		if n += byDays[d]; 3*n > 2*e.cfg.Budget.PerHour() {
			break
		}
		days = d
	}
	return days
}

// unitCandidateLocked is the next request of u as the rule sees it: its
// first, or its walk's next.
func (e *Engine) unitCandidateLocked(u *unit, now time.Time, hourlyDays int) schedule.Unit {
	cost, guess := e.estimateLocked(u, now)
	s := schedule.Unit{Days: u.Window.Days, Need: 1}
	sent := 0
	if u.job != nil {
		sent, s.Started = u.job.walk.Sent(), true
	}
	s.Left = walkLeft(cost, sent, guess, e.cfg.Budget.PerHour())
	cheap := e.cheapLocked(u, cost)
	s.Totals = cheap && u.pages != nil
	if !e.isWalkLocked(u) {
		s.Need = min(cost, e.cfg.Budget.PerHour())
	}
	moved := u.snap != nil && u.snap.rng != u.Window.Range(now)
	// For the forecast: its refreshes after the next (a fixed range has none).
	s.Again, s.Cost, s.Rollover = e.cfg.MinInterval, cost, cheap && u.Window.Days == 1
	if cheap && u.Window.Days <= hourlyDays {
		s.FreshAfter = hourly
	}
	switch {
	case u.fixed != nil:
		s.Worth, s.Totals, s.Again = u.fixed.worth, u.fixed.totals, 0
	case u.snap == nil || cheap && u.Window.Days == 1 && moved:
		s.Fresh, s.Reserved = true, true
	case cheap && u.Window.Days <= hourlyDays && now.Sub(u.snap.completed) >= hourly:
		s.Fresh = true
	default:
		s.Changed, s.Completed = min(1, now.Sub(u.snap.completed).Hours()/(24*float64(max(1, u.Window.Days)))), u.snap.completed
		if moved {
			s.Changed = max(s.Changed, 1/float64(max(1, u.Window.Days)))
		}
	}
	return s
}

// reserveLocked is the one reserve: a tenth of the budget, and in the hour
// before UTC midnight one request more for every 1d one-request unit with
// data, half the budget at most. Only units without data and 1d units
// showing the day that ended may use it, so those read the new day at
// midnight and MintlifyBudgetExhausted stays quiet on a setup that fits.
// It returns the reserve now, and the one of the hour before midnight.
func (e *Engine) reserveLocked(now time.Time) (reserve, eve int) {
	perHour, n := e.cfg.Budget.PerHour(), 0
	for _, u := range e.units {
		if u.Window.Days == 1 && u.snap != nil && !e.servedLocked(u) {
			if c, _ := e.estimateLocked(u, now); e.cheapLocked(u, c) {
				n++
			}
		}
	}
	if eve = min(perHour/10+n, perHour/2); client.DateOf(now).AddDays(1).Time().Sub(now) > time.Hour {
		return perHour / 10, eve
	}
	return eve, eve
}

// forecastHorizon bounds the requests a forecast books: two days' default budget.
const forecastHorizon = 48 * 90

// forecastSpan is the horizon's time at the default budget: a unit past it is expected no sooner.
const forecastSpan = 48 * time.Hour

// decideLocked returns the job whose next request the worker sends now, or
// nil and when to look again. It also runs the rule forward to say when
// each waiting unit is expected to start, and each unit's interval.
func (e *Engine) decideLocked(now time.Time) (pick *job, next time.Time) {
	var cands, later []*unit
	shown := 0
	var sched []schedule.Unit
	hourlyDays := e.hourlyDaysLocked(now)
	units := append(slices.Clip(e.units), e.readsLocked(now)...)
	for _, u := range units {
		u.rank, u.dueAt = "", time.Time{}
		if j := u.job; j != nil && e.expiredLocked(j, now) {
			e.dropJobLocked(j)
		}
		if u.inFlight {
			continue
		}
		if at, ok := e.eligibleAtLocked(u, now); u.job == nil && (!ok || at.After(now)) {
			u.waitAt, u.waitWhy = time.Time{}, ""
			if ok {
				next = minTime(next, at)
				if u.snap != nil && u.lastErr == "" {
					u.dueAt = at
					later = append(later, u)
				}
			}
			continue
		}
		cands, sched = append(cands, u), append(sched, e.unitCandidateLocked(u, now, hourlyDays))
		if u.fixed == nil {
			shown++ // the landing page shows windows, not fixed ranges
		}
	}
	perHour := e.cfg.Budget.PerHour()
	sent, paused := e.cfg.Budget.Ledger()
	reserve, eve := e.reserveLocked(now)
	view := schedule.Budget{Remaining: e.cfg.Budget.Remaining(), Paused: paused.After(now), Reserve: reserve}
	order := schedule.Order(sched)
	picked := schedule.Next(sched, view)
	// The rule run forward, with the units not eligible yet from when they are.
	all := slices.Clone(sched)
	for _, u := range later {
		c := e.unitCandidateLocked(u, now, hourlyDays)
		c.From = u.dueAt
		all = append(all, c)
	}
	starts, gaps := schedule.Forecast(all, sent, maxTime(now, paused), perHour, perHour/10, eve, forecastHorizon, budget.PaceMargin)
	for k, u := range later {
		u.dueAt = maxTime(u.dueAt, cmp.Or(starts[len(sched)+k], now.Add(forecastSpan)))
		u.gap = gaps[len(sched)+k]
	}
	waitingFirst, pos := false, 0
	for _, i := range order {
		u := cands[i]
		if u.fixed != nil {
			continue // the landing page shows windows, not fixed ranges
		}
		pos++
		u.gap = gaps[i]
		u.rank = fmt.Sprintf("%d of %d (worth %.2g a request)", pos, shown, schedule.Value(sched[i]))
		u.waitAt, u.waitWhy = time.Time{}, ""
		if starts[i].After(now) || starts[i].IsZero() {
			u.waitAt, u.waitWhy = starts[i], "budget"
			if u.waitAt.IsZero() { // past the forecast's horizon
				u.waitAt = now.Add(forecastSpan)
			}
			if view.Paused {
				u.waitWhy = "paused"
			}
			waitingFirst = waitingFirst || u.snap == nil && !u.attempted
		}
	}
	if waitingFirst && !e.firstRoundLogged {
		e.logFirstRoundLocked(now, picked >= 0)
	}
	defer e.setIntervalsLocked(now)
	if picked >= 0 {
		return e.startLocked(cands[picked], now), now
	}
	// Nothing goes now: look again when the first unit is expected to.
	for _, i := range order {
		wake := starts[i]
		if !wake.After(now) { // kept from the reserve, or past the horizon: never a busy loop
			wake = now.Add(time.Second)
			if len(sent) > 0 {
				wake = maxTime(wake, sent[0].Add(time.Hour+budget.PaceMargin))
			}
		}
		next = minTime(next, wake)
	}
	// The reserve changes an hour before UTC midnight and at midnight.
	midnight := client.DateOf(now).AddDays(1).Time()
	if eve := midnight.Add(-time.Hour); eve.After(now) {
		next = minTime(next, eve)
	} else {
		next = minTime(next, midnight)
	}
	return nil, next
}

// eligibleAtLocked is when the rule may pick u (ok false: never): without data
// at once (after any back-off), with data once older than MinInterval or at
// the midnight that moves its window; a Layer's read from its At; a unit the
// Layer serves never, and once it no longer does from Serving.From.
func (e *Engine) eligibleAtLocked(u *unit, now time.Time) (at time.Time, ok bool) {
	sv := e.servingLocked(u)
	if u.inFlight || u.job != nil || sv.On {
		return time.Time{}, false
	}
	if u.fixed != nil {
		return maxTime(u.fixed.at, u.retryAt), true
	}
	if u.snap == nil {
		return u.retryAt, true
	}
	// Its range's dateTo is the next UTC midnight.
	at = minTime(u.snap.completed.Add(e.cfg.MinInterval), u.snap.rng.To.Time())
	if u.snap.served {
		at = sv.From
	}
	return maxTime(at, u.retryAt), true
}

// setIntervalsLocked sets each unit's interval once per refresh: from its data
// to the start the rule expects once it is eligible (now if at once), at
// least MinInterval and the longest time the rule expects between two of its
// starts over the next six hours (the hours around midnight); a unit the Layer
// serves has its Like's. It stays until the next data, so a unit that fails
// or waits longer than expected outgrows three intervals (MintlifyDataStale)
// instead of moving its own threshold.
func (e *Engine) setIntervalsLocked(now time.Time) {
	for _, u := range e.units {
		if e.servedLocked(u) || u.snap == nil || u.intervalFrom.Equal(u.snap.completed) {
			continue
		}
		var at time.Time
		switch {
		case u.job != nil || u.inFlight:
			at = now
		case !u.waitAt.IsZero():
			at = u.waitAt
		case u.rank != "": // eligible, past the forecast's horizon
			at = now.Add(forecastSpan)
		default:
			continue // not eligible yet
		}
		u.intervalFrom = u.snap.completed
		if iv := max(e.cfg.MinInterval, at.Sub(u.snap.completed).Round(time.Second), u.gap.Round(time.Second)); iv != u.interval {
			u.interval = iv
			e.cfg.Status.SetInterval(u.Project, u.Source, u.Window.Name, e.statusPart(u), iv)
		}
	}
	for _, u := range e.units {
		if sv := e.servingLocked(u); sv.On && e.byUnit[sv.Like] != nil && u.interval != e.byUnit[sv.Like].interval {
			u.interval = e.byUnit[sv.Like].interval
			e.cfg.Status.SetInterval(u.Project, u.Source, u.Window.Name, e.statusPart(u), u.interval)
		}
	}
}

// startLocked returns u's job, starting it when new.
func (e *Engine) startLocked(u *unit, now time.Time) *job {
	if u.job != nil {
		return u.job
	}
	j := &job{u: u, started: now, rng: u.rangeAt(now)}
	prev := 0
	if u.snap != nil {
		prev, _ = e.estimateLocked(u, now)
	}
	u.job = j
	j.walk, j.err = e.newWalk(u, j.rng, prev)
	return j
}

// expiredLocked reports whether a walk in progress must start again: it ran
// past maxWalkAge, or its 1d range moved at midnight.
func (e *Engine) expiredLocked(j *job, now time.Time) bool {
	if j.u.Window.Days == 1 && j.rng != j.u.rangeAt(now) {
		return true
	}
	cost, _ := e.estimateLocked(j.u, now)
	if s := j.u.snap; s != nil && !s.served {
		cost = max(cost, s.res.Cost) // a whole walk, not the day after a rollover
	}
	if j.walk != nil {
		cost = max(cost, 2*j.walk.Sent()) // a walk that outgrew its estimate
	}
	return now.Sub(j.started) > maxWalkAge(cost, e.cfg.Budget.PerHour())
}

// dropJobLocked abandons a walk; the unit starts anew.
func (e *Engine) dropJobLocked(j *job) {
	level.Debug(e.logger).Log("msg", "a walk in progress starts again (it ran too long, or its date range moved)",
		"collector", j.u.Source, "project", j.u.Project, "window", j.u.Window.String(), "pages", j.walk.Sent())
	j.u.job = nil
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// minTime is the earlier of a and b, where the zero time means none.
func minTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Reserve is the part of this hour's requests left that the rule keeps for
// units without data and the 1d new day (reserveLocked): the landing page's.
func (e *Engine) Reserve() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	reserve, _ := e.reserveLocked(e.cfg.Now())
	return reserve
}
