package engine

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/budget"
	"github.com/mintlify-exporter/mintlify_exporter/engine/derive"
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

// derivedGrace is how long after UTC midnight a derived window waits for
// the day that ended to reach the store before it is read directly.
const derivedGrace = 2 * time.Hour

// dueAtLocked is when u falls due: at once without data (after any
// back-off), at the midnight that moves its window, or when its data is
// older than its interval; zero for never. A refresh in the last quarter of
// an interval before midnight waits for it: its data would be replaced then,
// and its requests stay free for the rollover.
func (e *Engine) dueAtLocked(u *unit, now time.Time) time.Time {
	if u.inFlight || u.job != nil {
		return time.Time{}
	}
	if u.derived {
		if auditedWithTotals(u) {
			return time.Time{}
		}
		at := u.auditAt.Add(auditEvery)
		if e.unsettledLocked(u, now) && at.Before(now.Add(auditEvery/24)) {
			at = now.Add(auditEvery / 24) // audited once its days are read for good
		}
		return at
	}
	if u.snap == nil {
		return u.retryAt
	}
	rollover := u.snap.rng.To.Time() // the window's dateTo: the next UTC midnight
	at := u.snap.completed.Add(u.interval)
	if quiet := rollover.Add(-u.interval / 4); !at.Before(quiet) || !now.Before(quiet) {
		at = rollover
	}
	if u.snap.derived && u.fallback == "" && at.Before(rollover.Add(derivedGrace)) {
		at = rollover.Add(derivedGrace)
	}
	if u.retryAt.After(at) {
		at = u.retryAt
	}
	return at
}

// auditedWithTotals reports whether u is a derived page walk whose totals
// unit is derived too: the totals' audit of the site-wide figure stands for both.
func auditedWithTotals(u *unit) bool {
	return u.derived && u.totals != nil && u.totals.derived
}

// dueLocked reports whether u should start a refresh at now. A due unit stays
// due until it starts, even if a replan stretches its interval.
func (e *Engine) dueLocked(u *unit, now time.Time) bool {
	if u.inFlight || u.job != nil || auditedWithTotals(u) {
		return false
	}
	u.due = u.due || !now.Before(e.dueAtLocked(u, now))
	return u.due
}

// estimateLocked is the expected cost of u's next refresh, and whether it is
// a bare guess. With data: its last cost, less the share that left the
// window at midnight. Before: its CostEstimator, else the nearest sibling
// with data (same project and source, then cost group, then same window of
// another project). Walks are paced per request, so a low estimate never
// exceeds the budget.
func (e *Engine) estimateLocked(u *unit, now time.Time) (cost int, guess bool) {
	if u.snap != nil && !u.snap.derived {
		cost := u.snap.res.Cost
		if u.snap.rng != u.Window.Range(now) {
			days := max(1, u.Window.Days)
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
			if o == u || o.snap == nil || o.snap.derived || o.Window.Site != u.Window.Site || !sibling(o) {
				continue
			}
			// A tie goes to the longer window, whose cost bounds the shorter's.
			d := math.Abs(math.Log(float64(max(1, o.Window.Days)) / float64(max(1, u.Window.Days))))
			if d < bestDist || (d == bestDist && o.snap.res.Cost > best) {
				best, bestDist = o.snap.res.Cost, d
			}
		}
		if best > 0 {
			return best, false
		}
	}
	return unknownCost, true
}

// guessingLocked reports whether some unit has only the default estimate.
func (e *Engine) guessingLocked(now time.Time) bool {
	for _, u := range e.units {
		if _, guess := e.estimateLocked(u, now); guess {
			return true
		}
	}
	return false
}

// minWalkAge is the least maxWalkAge: offset paging over changing data is
// only consistent within a walk that is not spread out too long.
const minWalkAge = 3 * time.Hour

// maxWalkAge is how long a walk of cost requests may run before it starts
// again: three hours, or twice what the whole budget takes to send it.
func maxWalkAge(cost, perHour int) time.Duration {
	return max(minWalkAge, time.Duration(2*float64(cost)/float64(max(1, perHour))*float64(time.Hour)))
}

// headroom is a tenth of the hour's budget (schedule.Budget.Headroom).
func headroom(perHour int) int { return perHour / 10 }

// candidate is a request the worker could send next, and what it is for.
type candidate struct {
	c    schedule.Candidate
	u    *unit // the unit refreshed or audited, or the base of a day read
	j    *job  // the job in progress, nil for a fetch still to start
	kind jobKind
	day  *dayTask
	left int // requests still to send, for forecasts
}

// isWalkLocked reports whether u's fetch is a walk sent a request at a time.
func (e *Engine) isWalkLocked(u *unit) bool {
	st, ok := e.sources[u.src].src.(Stepper)
	return ok && st.Walks(u.Unit)
}

// wrongLocked is how wrong u's data is at now, as a share of its value.
func wrongLocked(u *unit, now time.Time) float64 {
	days := float64(max(1, u.Window.Days))
	if u.snap == nil {
		return 1
	}
	wrong := now.Sub(u.snap.completed).Hours() / (24 * days)
	if u.snap.rng != u.Window.Range(now) {
		wrong = max(wrong, 1/days)
	}
	return wrong
}

// unitCandidateLocked is the next request of u: its first, or its walk's next.
func (e *Engine) unitCandidateLocked(order int, u *unit, now time.Time) candidate {
	cost, guess := e.estimateLocked(u, now)
	cd := candidate{u: u, j: u.job, kind: jobRefresh}
	if u.derived {
		cd.kind = jobAudit
	}
	c := schedule.Candidate{Order: order, Days: u.Window.Days, Need: 1}
	sent := 0
	if u.job != nil {
		sent, c.Started, cd.kind = u.job.walk.Sent(), true, u.job.kind
	}
	cd.left = cost - sent
	unknown := cd.left < 1 || guess && sent > 0
	if unknown {
		// A walk of unknown size counts as an hour's budget, so that
		// such walks go one at a time rather than all half way.
		cd.left = max(1, e.cfg.Budget.PerHour())
	}
	switch {
	case u.pages != nil || (u.Window.Site && e.sources[u.src].splits):
		c.Kind = schedule.Totals
	case e.isWalkLocked(u):
		c.Kind = schedule.Walk
	default:
		c.Kind, c.Need = schedule.Single, min(cost, e.cfg.Budget.PerHour())
		if cost > 1 {
			c.Kind = schedule.Walk // a walk sent whole, such as a cursor walk
		}
	}
	c.Critical = u.Window.Days == 1 && c.Kind != schedule.Walk
	switch {
	case cd.kind == jobAudit:
		c.Class, c.Value = schedule.Stale, 0.5/float64(max(1, u.Window.Days)*cd.left)
	case u.snap == nil && c.Kind == schedule.Walk && (!unknown && cd.left > e.cfg.Budget.PerHour()/2 || e.longWalksLocked(u)):
		// A walk longer than half the hour (a large site) competes by
		// value: its first data is worth 1 over its remaining pages.
		c.Class, c.Value = schedule.Stale, 1/float64(cd.left)
	case u.snap == nil:
		c.Class = schedule.FirstData
	case c.Critical && u.snap.rng != u.Window.Range(now):
		c.Class = schedule.Urgent // a 1d unit still showing the day that ended
	case c.Kind != schedule.Walk && cost <= 1 && now.Sub(u.snap.completed) >= cheapMaxInterval:
		c.Class = schedule.Overdue
	default:
		c.Class, c.Value = schedule.Stale, wrongLocked(u, now)/float64(cd.left)
	}
	cd.c = c
	u.rank = rankText(c)
	return cd
}

// longWalksLocked reports whether a walk of u's project and source (or
// cost group) took, or has sent, more than half the hour's budget.
func (e *Engine) longWalksLocked(u *unit) bool {
	long := e.cfg.Budget.PerHour() / 2
	group := e.sources[u.src].group
	for _, o := range e.units {
		if o.Project != u.Project || o.Window.Site || (o.src != u.src && (group == "" || e.sources[o.src].group != group)) {
			continue
		}
		if o.snap != nil && !o.snap.derived && o.snap.res.Cost > long || o.job != nil && o.job.walk != nil && o.job.walk.Sent() > long {
			return true
		}
	}
	return false
}

// rankText says where a candidate stands in the value order.
func rankText(c schedule.Candidate) string {
	switch c.Class {
	case schedule.FirstData:
		kind := [...]string{"site totals", "one request", "page walk"}[c.Kind]
		return fmt.Sprintf("first data: %dd, %s", c.Days, kind)
	case schedule.Stale:
		return fmt.Sprintf("refresh: %.2g of its value per request", c.Value)
	case schedule.Urgent:
		return "the new day (UTC midnight passed)"
	case schedule.Overdue:
		return "overdue: a one-request unit an hour old"
	}
	return c.Class.String()
}

// dayCandidatesLocked lists the day store's reads, in progress first. The
// day that just ended competes as stale (every derived window waits for
// it); older days only in spare room.
func (e *Engine) dayCandidatesLocked(now time.Time, order int) []candidate {
	yesterday := client.DateOf(now).AddDays(-1)
	var out []candidate
	running := map[derive.Key]bool{}
	add := func(dt *dayTask, j *job) {
		cost, guess := e.estimateLocked(dt.base, now)
		c := schedule.Candidate{Order: order, Days: 1, Need: 1, Started: j != nil}
		order++
		if !e.isWalkLocked(dt.base) {
			c.Need = min(cost, e.cfg.Budget.PerHour())
		}
		left := cost
		if guess && e.isWalkLocked(dt.base) {
			left = max(1, e.cfg.Budget.PerHour()) // nothing tells its size: see unitCandidateLocked
		} else if j != nil && j.walk != nil {
			if left = cost - j.walk.Sent(); left < 1 {
				left = max(1, e.cfg.Budget.PerHour()) // outgrew its estimate: see unitCandidateLocked
			}
		}
		switch {
		case dt.Key.Day != yesterday || dt.Reread:
			c.Class = schedule.Spare
		default:
			// A provisional day stands in meanwhile: worth a whole day per request.
			c.Class, c.Value = schedule.Stale, 1/float64(left)
		}
		out = append(out, candidate{c: c, u: dt.base, j: j, kind: jobDay, day: dt, left: left})
	}
	for _, j := range e.dayJobs {
		running[j.day.Key] = true
		add(j.day, j)
	}
	for _, dt := range e.dayTasksLocked(now) {
		if !running[dt.Key] {
			add(&dt, nil)
		}
	}
	return out
}

// rolloverReserveLocked is the room kept in the hour before UTC midnight:
// one request for each 1d totals or one-request unit with data.
func (e *Engine) rolloverReserveLocked(now time.Time) int {
	midnight := client.DateOf(now).AddDays(1).Time()
	if midnight.Sub(now) > time.Hour {
		return 0
	}
	n := 0
	for _, u := range e.units {
		if u.Window.Days == 1 && u.snap != nil && !u.derived && !e.isWalkLocked(u) {
			n++
		}
	}
	return min(n, e.cfg.Budget.PerHour()/2)
}

// decideLocked returns the job whose next request the worker sends now, or
// nil and when to look again; it also forecasts the waiting units' start.
func (e *Engine) decideLocked(now time.Time) (pick *job, next time.Time) {
	var cands []candidate
	for i, u := range e.units {
		u.rank = ""
		if j := u.job; j != nil && e.expiredLocked(j, now) {
			e.dropJobLocked(j)
		}
		if u.job != nil || e.dueLocked(u, now) {
			cands = append(cands, e.unitCandidateLocked(i, u, now))
			continue
		}
		u.waitAt, u.waitWhy = time.Time{}, ""
		next = minTime(next, e.dueAtLocked(u, now))
	}
	if e.cfg.DeriveWindows {
		for _, j := range slices.Clone(e.dayJobs) {
			if e.expiredLocked(j, now) {
				e.dropJobLocked(j)
			}
		}
		if now.Before(e.dayRetryAt) {
			next = minTime(next, e.dayRetryAt)
		} else {
			cands = append(cands, e.dayCandidatesLocked(now, len(e.units))...)
		}
	}
	perHour := e.cfg.Budget.PerHour()
	paused := e.cfg.Budget.PausedUntil()
	view := schedule.Budget{Remaining: e.cfg.Budget.Remaining(), Paused: !paused.IsZero(),
		Reserve: e.rolloverReserveLocked(now), Headroom: headroom(perHour),
		SpareLeft: max(0, max(1, e.dayReserveLocked(now))-e.spare.Count(now))}
	sc := make([]schedule.Candidate, len(cands))
	for i := range cands {
		sc[i] = cands[i].c
	}
	order := schedule.Order(sc)
	picked := schedule.Next(sc, view)
	wake := e.forecastLocked(cands, order, picked, view, now)
	if picked < 0 {
		next = minTime(next, wake)
	} else {
		pick, next = e.startLocked(cands[picked], now), now
		if c := cands[picked].c; c.Class == schedule.Spare {
			e.spare.Add(now, max(1, c.Need))
		}
	}
	return pick, next
}

// forecastHorizon bounds, in hours of the budget, what one candidate books
// in a forecast.
const forecastHorizon = 48

// forecastLocked sets when each waiting unit is expected to start, booking
// each candidate's requests after those ahead of it in the value order, and
// returns when the worker should look again.
func (e *Engine) forecastLocked(cands []candidate, order []int, picked int, view schedule.Budget, now time.Time) (wake time.Time) {
	perHour := e.cfg.Budget.PerHour()
	sent, paused := e.cfg.Budget.Ledger()
	from := now
	if paused.After(now) {
		from = paused
	}
	ledger := newReservations(sent, perHour)
	book := newReservations(sent, perHour)
	gate, waitingFirst, blocked := from, false, false
	for _, i := range order {
		cd := cands[i]
		need := min(max(1, cd.c.Need), perHour)
		// The room it may not use (headroom, reserve) must be free too.
		extra := max(0, view.Remaining-schedule.Room(cd.c, view))
		if !blocked && i != picked {
			at := ledger.earliest(from, min(perHour, need+extra))
			if view.Reserve > 0 && !cd.c.Critical {
				at = minTime(at, client.DateOf(now).AddDays(1).Time())
			}
			if !at.After(now) {
				at = now.Add(time.Second) // defensive: never a busy loop
			}
			wake = minTime(wake, at)
			blocked = need > view.Remaining // nothing passes it
		}
		if cd.c.Class == schedule.Spare {
			continue // not forecast: spare room only
		}
		at := book.earliest(gate, min(perHour, need+extra))
		if i == picked {
			at = now
		}
		// Booked at most forecastHorizon ahead: a cost is bounded, but
		// what lies beyond changes nothing that is decided now.
		for left, t := min(max(cd.left, need), forecastHorizon*perHour), at; left > 0; {
			n := min(left, perHour)
			t = book.earliest(t, n)
			book.add(t, n)
			left -= n
		}
		gate = maxTime(gate, at)
		if cd.kind == jobDay {
			continue
		}
		u := cd.u
		if !at.After(now) {
			u.waitAt, u.waitWhy = time.Time{}, ""
			continue
		}
		u.waitAt, u.waitWhy = at, "budget"
		if at.Equal(from) && from.After(now) {
			u.waitWhy = "paused"
		}
		if u.snap == nil && !u.attempted {
			waitingFirst = true
		}
	}
	if waitingFirst && !e.firstRoundLogged && (picked < 0 || !e.guessingLocked(now)) {
		e.logFirstRoundLocked(now)
	}
	return wake
}

// startLocked returns cd's job, starting it when new.
func (e *Engine) startLocked(cd candidate, now time.Time) *job {
	if cd.j != nil {
		return cd.j
	}
	u := cd.u
	j := &job{kind: cd.kind, u: u, day: cd.day, started: now}
	prev := 0
	switch cd.kind {
	case jobRefresh:
		j.rng = u.Window.Range(now)
		if u.snap != nil {
			prev, _ = e.estimateLocked(u, now)
		}
		u.due = false
		u.job = j
	case jobAudit:
		j.rng = client.DateRange{From: client.DateOf(now).AddDays(-(u.Window.Days - 1)), To: client.DateOf(now)}
		u.due = false
		u.job = j
	case jobDay:
		j.rng = client.DateRange{From: cd.day.Key.Day, To: cd.day.Key.Day.AddDays(1)}
		e.dayJobs = append(e.dayJobs, j)
	}
	j.walk, j.err = e.newWalk(u, j.rng, prev)
	return j
}

// expiredLocked reports whether a walk in progress must start again: it ran
// past maxWalkAge, its 1d range moved at midnight, or its audit's day ended.
func (e *Engine) expiredLocked(j *job, now time.Time) bool {
	switch {
	case j.kind == jobRefresh && j.u.Window.Days == 1 && j.rng != j.u.Window.Range(now):
		return true
	case j.kind == jobAudit && client.DateOf(now) != client.DateOf(j.started):
		return true
	}
	cost, _ := e.estimateLocked(j.u, now)
	if s := j.u.snap; s != nil && !s.derived {
		cost = max(cost, s.res.Cost) // a whole walk, not the day after a rollover
	}
	if j.walk != nil {
		cost = max(cost, 2*j.walk.Sent()) // a walk that outgrew its estimate
	}
	return now.Sub(j.started) > maxWalkAge(cost, e.cfg.Budget.PerHour())
}

// dropJobLocked abandons a walk; the unit stays due, to start anew.
func (e *Engine) dropJobLocked(j *job) {
	level.Debug(e.logger).Log("msg", "a walk in progress starts again (it ran too long, or its date range moved)",
		"collector", j.u.Source, "project", j.u.Project, "window", j.u.Window.String(), "pages", j.walk.Sent())
	e.detachLocked(j)
	if j.kind == jobRefresh {
		j.u.due = true
	}
}

// detachLocked removes j from where it is kept.
func (e *Engine) detachLocked(j *job) {
	if j.kind == jobDay {
		e.dayJobs = slices.DeleteFunc(e.dayJobs, func(o *job) bool { return o == j })
		return
	}
	if j.u.job == j {
		j.u.job = nil
	}
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

// reservations forecasts the ledger: the last hour's requests and the
// bookings of the units that wait.
type reservations struct {
	perHour int
	at      []time.Time // ascending
	cum     []int       // cum[i]: requests booked at at[0..i-1]; len(at)+1 entries
}

func newReservations(sent []time.Time, perHour int) *reservations {
	r := &reservations{perHour: perHour, cum: []int{0}}
	for _, t := range sent {
		r.add(t, 1)
	}
	return r
}

// add books n requests at t.
func (r *reservations) add(t time.Time, n int) {
	i, found := slices.BinarySearchFunc(r.at, t, time.Time.Compare)
	if !found {
		r.at = slices.Insert(r.at, i, t)
		r.cum = slices.Insert(r.cum, i+1, r.cum[i])
	}
	for j := i + 1; j < len(r.cum); j++ {
		r.cum[j] += n
	}
}

// count is the number of requests booked in the hour (end-1h, end].
func (r *reservations) count(end time.Time) int {
	hi, found := slices.BinarySearchFunc(r.at, end, time.Time.Compare)
	if found {
		hi++
	}
	lo, found := slices.BinarySearchFunc(r.at, end.Add(-time.Hour), time.Time.Compare)
	if found {
		lo++
	}
	return r.cum[hi] - r.cum[lo]
}

// fits reports whether n more requests at t keep every sliding hour within
// the budget: only the hours ending at t and at bookings in the hour after t change.
func (r *reservations) fits(t time.Time, n int) bool {
	if r.count(t)+n > r.perHour {
		return false
	}
	i, _ := slices.BinarySearchFunc(r.at, t, time.Time.Compare)
	for ; i < len(r.at) && r.at[i].Before(t.Add(time.Hour)); i++ {
		if r.count(r.at[i])+n > r.perHour {
			return false
		}
	}
	return true
}

// earliest is the first time from from on at which n requests fit (with the
// budget's pacing margin).
func (r *reservations) earliest(from time.Time, n int) time.Time {
	if r.fits(from, n) {
		return from
	}
	for _, a := range r.at {
		if t := a.Add(time.Hour + budget.PaceMargin); t.After(from) && r.fits(t, n) {
			return t
		}
	}
	// Unreachable while n <= perHour: nothing is booked an hour after the last.
	return r.at[len(r.at)-1].Add(time.Hour + budget.PaceMargin)
}
