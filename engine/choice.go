package engine

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// CostEstimator is implemented by a source that knows what a unit costs
// before its first fetch, such as a single request per unit. EstimateCost
// returns 0 when it does not know (a paged walk before its first page).
type CostEstimator interface {
	EstimateCost(u Unit) int
}

// CostGrouper is implemented by sources whose units cost alike because
// they walk the same pages, such as visitors and views (one row per path):
// before its first fetch, a unit's cost is estimated from the same
// project and window of another source of its group.
type CostGrouper interface {
	CostGroup() string
}

// unknownCost is the estimate of a unit nothing is known about: a paged
// walk of a site of about 1,000 paths. It only orders the first round;
// the planner replans from real costs as they arrive.
const unknownCost = 4

// derivedGrace is how long after UTC midnight a window derived the day
// before waits for the day that ended to be read into the store before it
// is read directly instead.
const derivedGrace = 2 * time.Hour

// dueAtLocked is when u falls due, as seen at now: at once without data
// (after any back-off), at the UTC midnight that moves its window, or when
// its data is older than its interval. In the last quarter of an interval
// before that midnight a refresh is not due: its data would be replaced at
// midnight anyway, and its requests stay free for the rollover, when every
// unit is due at once. The zero time means never (a refresh is running).
func (e *Engine) dueAtLocked(u *unit, now time.Time) time.Time {
	if u.inFlight {
		return time.Time{}
	}
	if u.derived {
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
		// A window derived yesterday waits for the day that just closed
		// to be read into the store, rather than being read whole.
		at = rollover.Add(derivedGrace)
	}
	if u.retryAt.After(at) {
		at = u.retryAt
	}
	return at
}

// dueLocked reports whether u should start a refresh at now. Once due, a
// unit stays due until its refresh starts: a replan that stretches its
// interval meanwhile does not take the refresh back.
func (e *Engine) dueLocked(u *unit, now time.Time) bool {
	if u.inFlight {
		return false
	}
	u.due = u.due || !now.Before(e.dueAtLocked(u, now))
	return u.due
}

// estimateLocked is what the next refresh of u is expected to cost, and
// whether that is a guess nothing backs. With data: its last cost, less
// the share of it that left the window when the UTC day rolled over (a 1d
// window starts the day nearly empty). Before its first fetch: what its
// source says (CostEstimator), else the nearest sibling with data: the
// same project's other windows of the source, then the same project of a
// source of its cost group (visitors and views), then the same window of
// another project. The walk is paced request by request anyway, so an
// estimate too low never exceeds the budget.
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
			// The nearest window by ratio of days; a tie goes to the
			// longer window, whose cost bounds the shorter's.
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

// guessingLocked reports whether some unit without data has only the
// default estimate.
func (e *Engine) guessingLocked(now time.Time) bool {
	for _, u := range e.units {
		if _, guess := e.estimateLocked(u, now); guess {
			return true
		}
	}
	return false
}

// valueOrderLocked sorts units by what a request spent on them buys, best
// first. A unit without data is worth the most; among those the cheapest
// goes first, so every project's one-request units have data within
// seconds however large the site. A unit with data is wrong by about
// a/(24·N) of its value after a hours for an N-day window, and by about
// 1/N once the UTC day rolled over and the window moved; it goes by that
// error per request. Ties keep the units' order.
func (e *Engine) valueOrderLocked(units []*unit, now time.Time, cost map[*unit]int) {
	score := func(u *unit) float64 {
		days := float64(max(1, u.Window.Days))
		wrong := now.Sub(u.snap.completed).Hours() / (24 * days)
		if u.snap.rng != u.Window.Range(now) {
			wrong = max(wrong, 1/days)
		}
		return wrong / float64(cost[u])
	}
	index := make(map[*unit]int, len(e.units))
	for i, u := range e.units {
		index[u] = i
	}
	slices.SortStableFunc(units, func(a, b *unit) int {
		switch {
		case a.snap == nil && b.snap == nil:
			if c := cmp.Compare(cost[a], cost[b]); c != 0 {
				return c
			}
			if c := cmp.Compare(a.Window.Days, b.Window.Days); c != 0 {
				return c
			}
		case a.snap == nil:
			return -1
		case b.snap == nil:
			return 1
		default:
			if c := cmp.Compare(score(b), score(a)); c != 0 {
				return c
			}
		}
		return cmp.Compare(index[a], index[b])
	})
}

// task is what the worker does next: refresh a unit, audit a derived
// window (audit), or read a closed day into the day store (day).
type task struct {
	u     *unit
	cost  int
	audit bool
	day   *dayTask
	spare bool // a day read in the budget's spare room
}

// chooseLocked returns what to do now, or nil and when to look again. It
// books the budget for every due unit in value order (reservations): each
// gets the earliest time its requests fit the sliding hour without
// delaying a unit worth more. The first whose time is now runs; a unit
// cheaper than every unit that waits ahead of it (one request beside
// walks) thus fills the room a more valuable walk cannot use yet, but
// never delays it, while units of the same cost keep their order. The
// others wait, each with the time it is expected to start (waitAt).
// Closed days for the day store come after the units without data when
// they are the day that just ended (every derived window waits for it),
// else last, in the budget's spare room.
func (e *Engine) chooseLocked(now time.Time) (pick *task, next time.Time) {
	var due []*unit
	cost := map[*unit]int{}
	for _, u := range e.units {
		if e.dueLocked(u, now) {
			due = append(due, u)
			cost[u], _ = e.estimateLocked(u, now)
			continue
		}
		u.waitAt, u.waitWhy = time.Time{}, ""
		if at := e.dueAtLocked(u, now); !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	e.valueOrderLocked(due, now, cost)
	todo := make([]*task, 0, len(due))
	for _, u := range due {
		todo = append(todo, &task{u: u, cost: cost[u], audit: u.derived})
	}
	fill := -1 // todo[fill:], when fill >= 0, may only use the budget's spare room
	if e.cfg.DeriveWindows {
		if now.Before(e.dayRetryAt) {
			next = minTime(next, e.dayRetryAt)
		} else {
			// The day that just ended goes after the units without data
			// and the 1d units the derived windows add to it.
			yesterday := client.DateOf(now).AddDays(-1)
			at := slices.IndexFunc(todo, func(t *task) bool { return t.u.snap != nil })
			if at < 0 {
				at = len(todo)
			}
			for i := at; i < len(todo); i++ {
				if e.isBaseLocked(todo[i].u) {
					at = i + 1
				}
			}
			var urgent, rest []*task
			for _, dt := range e.dayTasksLocked(now) {
				c, _ := e.estimateLocked(dt.base, now)
				t := &task{u: dt.base, cost: c, day: &dt}
				if dt.day == yesterday && !dt.reread {
					urgent = append(urgent, t)
				} else {
					rest = append(rest, t)
				}
			}
			todo = slices.Concat(todo[:at], urgent, todo[at:])
			fill = len(todo)
			todo = append(todo, rest...)
		}
	}
	sent, paused := e.cfg.Budget.Ledger()
	from := now
	if paused.After(now) {
		from = paused
	}
	book := newReservations(sent, e.cfg.Budget.PerHour())
	waitingFirst := false
	// A unit may go before a more valuable one that waits only when it is
	// cheaper than every unit ahead of it that waits (a one-request unit
	// beside walks); else it starts after them. Spare-room day reads
	// always start after every unit that waits.
	gate, cheapestAhead := from, math.MaxInt
	for i, t := range todo {
		u := t.u
		need := min(t.cost, e.cfg.Budget.PerHour())
		start := from
		spare := fill >= 0 && i >= fill
		if t.cost >= cheapestAhead || spare {
			start = gate
		}
		at := book.earliest(start, need)
		if spare && (at.After(now) || overSpareShare(e.spareUsedLocked(now), need, e.dayReserveLocked(now))) {
			continue // spare room, within the planner's share for days: not booked, not waited for
		}
		book.add(at, need)
		if at.After(gate) {
			gate = at
		}
		if at.After(now) {
			cheapestAhead = min(cheapestAhead, t.cost)
		}
		if t.day != nil {
			t.spare = spare
			switch {
			case !at.After(now):
				if pick == nil {
					pick = t
				}
			case pick == nil:
				next = minTime(next, at) // a day read that waits for room
			}
			continue
		}
		if !at.After(now) { // runs now, or next: not waiting
			if pick == nil {
				pick = t
			}
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
		if pick == nil {
			next = minTime(next, at)
		}
	}
	if pick != nil {
		next = now
	}
	// The first round's line waits for estimates backed by data, or for
	// the worker to have nothing left to start.
	if waitingFirst && !e.firstRoundLogged && (pick == nil || !e.guessingLocked(now)) {
		e.logFirstRoundLocked(now)
	}
	return pick, next
}

// overSpareShare reports whether need more requests of day reads would
// exceed the share reserve the planner left them in the hour, used
// already; one read an hour always fits, however costly.
func overSpareShare(used, need, reserve int) bool {
	return used > 0 && used+need > reserve
}

// minTime is the earlier of a and b, where the zero time means none.
func minTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// reservations is a forecast of the request ledger: the requests of the
// last hour and those booked for the units that wait, by time.
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

// fits reports whether n more requests at t keep every sliding hour that
// contains t within the budget: the hours ending at t and at each booked
// time in the hour after t are the only ones whose count they change.
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

// earliest is the first time from from on at which n requests fit: from
// itself, or the moment a booked request leaves the hour (with the margin
// the budget's pacing keeps).
func (r *reservations) earliest(from time.Time, n int) time.Time {
	if r.fits(from, n) {
		return from
	}
	for _, a := range r.at {
		if t := a.Add(time.Hour + paceMargin); t.After(from) && r.fits(t, n) {
			return t
		}
	}
	// Unreachable while n is at most perHour: an hour after the last
	// booked request, nothing is booked.
	return r.at[len(r.at)-1].Add(time.Hour + paceMargin)
}
