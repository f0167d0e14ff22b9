// Package schedule is the engine's one scheduling rule, a pure function: when
// the ledger has room, send the next request of the unit whose data is worth
// most per request it still costs (engine/doc.go states the rule; this
// package is its arithmetic, and Forecast runs it forward for the landing page).
package schedule

import (
	"cmp"
	"slices"
	"time"
)

// Unit is what the rule knows of one unit, or of a Layer's fixed-range read.
type Unit struct {
	Days int // window length in days
	// Fresh is true when the unit's data counts as none: no data yet, a 1d
	// one-request unit still showing the day that ended, or a one-request
	// unit held to an hour whose data is an hour old.
	Fresh bool
	// Changed is the share of the window that changed since the data was
	// read (age / days × 24 h, at most 1); Worth, when above 0, replaces it
	// (reads of fixed ranges).
	Changed, Worth float64
	Left           int  // requests it still costs, at least 1
	Need           int  // room it needs now: 1 for a walk's next page, Left for a fetch sent whole
	Started        bool // a walk in progress: first among equals
	Totals         bool // site totals: first among equals, after walks in progress
	// Reserved may use the reserve: no data yet, or a 1d one-request unit
	// still showing the day that ended.
	Reserved bool
	// For Forecast: From is when the unit becomes eligible (zero: now);
	// Completed when its data was read (zero: it does not age); its data
	// counts as none FreshAfter after that (zero: never) or, Reserved, at the
	// next UTC midnight when Rollover; after each refresh (Again zero: none)
	// it is eligible Again later or at the next UTC midnight, costing Cost.
	From, Completed   time.Time
	Again, FreshAfter time.Duration
	Cost              int
	Rollover          bool
}

// Value is what u's next request is worth: its data's worth (1 plus 8/days
// when it counts as none, else the share of the window that changed) over
// the requests it still costs.
func Value(u Unit) float64 {
	v := u.Changed
	switch {
	case u.Fresh:
		v = 1 + 8/float64(max(1, u.Days))
	case u.Worth > 0:
		v = u.Worth
	}
	return v / float64(max(1, u.Left))
}

// valueAt is u's Value at t, its Changed grown with age since Completed,
// and at least a day's share once a UTC midnight has moved its window.
func valueAt(u Unit, t time.Time) float64 {
	if c := u.Completed; !c.IsZero() {
		u.Changed = max(u.Changed, min(1, t.Sub(c).Hours()/(24*float64(max(1, u.Days)))))
		if c.Before(t.UTC().Truncate(24 * time.Hour)) {
			u.Changed = max(u.Changed, 1/float64(max(1, u.Days)))
		}
	}
	return Value(u)
}

// Order returns the indexes of units by Value, best first; ties go to a walk
// in progress, then site totals, then the units' order.
func Order(units []Unit) []int {
	idx := make([]int, len(units))
	vals := make([]float64, len(units))
	for i := range idx {
		idx[i], vals[i] = i, Value(units[i])
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		a, b := units[i], units[j]
		return cmp.Or(cmp.Compare(vals[j], vals[i]), boolFirst(a.Started, b.Started), boolFirst(a.Totals, b.Totals))
	})
	return idx
}

func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// Budget is what the ledger allows now.
type Budget struct {
	Remaining int  // requests left in the sliding hour
	Paused    bool // a rate-limit pause: nothing is sent
	// Reserve is the room only Reserved units may use.
	Reserve int
}

// Next returns the index of the unit whose request goes now, or -1 when none
// may go: the first of Order that has room. A unit that waits for room in
// the hour is not passed by those after it; one kept from the reserve is
// passed by those allowed it.
func Next(units []Unit, b Budget) int {
	if b.Paused {
		return -1
	}
	for _, i := range Order(units) {
		need, room := max(1, units[i].Need), b.Remaining
		if !units[i].Reserved {
			room -= b.Reserve
		}
		if need <= room {
			return i
		}
		if need > b.Remaining {
			return -1
		}
	}
	return -1
}

// Forecast runs the rule forward from from on, a request at a time: the
// hour's next room (sent holds the requests of the last hour, ascending) goes
// to the unit worth most by then (valued every 15 minutes as it ages), among
// those eligible by then, Fresh as FreshAfter and Rollover say; the request
// goes as soon as the ledger has room for it (for Need of them at once),
// within the reserve (eve in the hour before a UTC midnight) unless Reserved;
// a request leaves the hour margin after an hour; a unit refreshed comes back
// as Again says. It returns when each unit is expected to start first, the
// zero time past horizon requests or, for a read of a fixed range, once every
// other unit has its start and six hours have passed; and the longest time
// expected between two starts of each unit over that time.
func Forecast(units []Unit, sent []time.Time, from time.Time, perHour, reserve, eve, horizon int, margin time.Duration) (starts []time.Time, gaps []time.Duration) {
	starts, gaps = make([]time.Time, len(units)), make([]time.Duration, len(units))
	began := make([]time.Time, len(units)) // each unit's last start
	booked := slices.Clone(sent)
	last, n, want := from, 0, len(units)-len(slices.DeleteFunc(slices.Clone(units), func(u Unit) bool { return u.Worth == 0 }))
	// at is the earliest time, from last on, at which need requests fit
	// with those booked, under the budget less the reserve of that time
	// unless reserved.
	at := func(need int, reserved bool) time.Time {
		free := func(from time.Time) time.Time {
			limit := perHour
			if !reserved && from.UTC().Truncate(24*time.Hour).Add(23*time.Hour).After(from) {
				limit -= reserve
			} else if !reserved {
				limit -= eve
			}
			if k := len(booked) - (max(limit, need) - need) - 1; k >= 0 {
				return maxTime(from, booked[k].Add(time.Hour+margin))
			}
			return from
		}
		t, day := free(last), last.UTC().Truncate(24*time.Hour)
		for _, b := range []time.Time{day.Add(23 * time.Hour), day.Add(24 * time.Hour)} {
			if b.After(last) && !t.Before(b) {
				t = free(b) // the reserve changes at b
			}
		}
		return t
	}
	// Each unit becomes eligible and Fresh in each of its refreshes (gen):
	// events in time order; ready holds the eligible units by value at keyAt.
	type event struct {
		t          time.Time
		i, gen     int
		fresh, res bool
	}
	var events []event
	push := func(ev event) {
		pos, _ := slices.BinarySearchFunc(events, ev.t, func(e event, t time.Time) int { return e.t.Compare(t) })
		events = slices.Insert(events, pos, ev)
	}
	cur, gen, key := slices.Clone(units), make([]int, len(units)), make([]float64, len(units))
	readyAt := make([]time.Time, len(units)) // when each became ready as it is
	// cycle has unit i, with data read at c, eligible at from and Fresh later.
	cycle := func(i int, c, from time.Time) {
		u, midnight := cur[i], c.UTC().Truncate(24*time.Hour).Add(24*time.Hour)
		push(event{t: from, i: i, gen: gen[i]})
		switch fresh := c.Add(u.FreshAfter); {
		case c.IsZero() || u.Fresh:
		case u.Rollover && (u.FreshAfter == 0 || midnight.Before(fresh)):
			push(event{t: midnight, i: i, gen: gen[i], fresh: true, res: true})
		case u.FreshAfter > 0:
			push(event{t: fresh, i: i, gen: gen[i], fresh: true})
		}
	}
	for i, u := range units {
		cycle(i, u.Completed, u.From)
	}
	less := func(i, j int) int {
		a, b := cur[i], cur[j]
		return cmp.Or(cmp.Compare(key[j], key[i]), boolFirst(a.Started, b.Started), boolFirst(a.Totals, b.Totals), cmp.Compare(i, j))
	}
	// ready[true] holds the units whose value grows with age, ready[false]
	// the others.
	ready, keyAt := map[bool][]int{}, from
	insert := func(i int, t time.Time) {
		key[i], readyAt[i] = valueAt(cur[i], keyAt), t
		k := !cur[i].Completed.IsZero() && !cur[i].Fresh
		pos, _ := slices.BinarySearchFunc(ready[k], i, less)
		ready[k] = slices.Insert(ready[k], pos, i)
	}
	for n < horizon && (want > 0 || last.Sub(from) < 6*time.Hour) && (len(ready[false])+len(ready[true]) > 0 || len(events) > 0) {
		t := at(1, false)
		if len(ready[false])+len(ready[true]) == 0 && events[0].t.After(t) {
			t, last = events[0].t, maxTime(last, events[0].t)
		}
		if t.Sub(keyAt) >= 15*time.Minute {
			keyAt = t
			for _, i := range ready[true] {
				key[i] = valueAt(cur[i], t)
			}
			slices.SortFunc(ready[true], less)
		}
		for len(events) > 0 && !events[0].t.After(t) {
			ev := events[0]
			events = events[1:]
			if ev.gen != gen[ev.i] {
				continue // of a refresh already forecast
			}
			if k := !cur[ev.i].Completed.IsZero() && !cur[ev.i].Fresh; ev.fresh {
				pos := slices.Index(ready[k], ev.i)
				cur[ev.i].Fresh, cur[ev.i].Reserved = true, cur[ev.i].Reserved || ev.res
				if pos < 0 {
					continue // it becomes eligible later
				}
				ready[k] = slices.Delete(ready[k], pos, pos+1)
			}
			insert(ev.i, ev.t)
		}
		k := len(ready[true]) > 0 && (len(ready[false]) == 0 || less(ready[true][0], ready[false][0]) < 0)
		if len(ready[k]) == 0 {
			continue // only Fresh events of units eligible later
		}
		i := ready[k][0]
		ready[k] = ready[k][1:]
		u := &cur[i]
		need := min(max(1, u.Need), perHour)
		t = maxTime(at(need, u.Reserved), readyAt[i])
		if starts[i].IsZero() && u.Worth == 0 {
			want--
		}
		if starts[i] = cmp.Or(starts[i], t); !u.Started {
			gaps[i], began[i] = max(gaps[i], t.Sub(cmp.Or(began[i], t))), t
		}
		booked = append(booked, slices.Repeat([]time.Time{t}, need)...)
		last, n = t, n+need
		// A walk's next request is chosen again, worth more with fewer left.
		if u.Left, u.Need, u.Started = max(need, u.Left)-need, 1, true; u.Left > 0 {
			insert(i, t)
		} else if u.Again > 0 {
			gen[i] = n // a refresh's own: n counts every request booked
			cur[i] = Unit{Days: u.Days, Left: max(1, u.Cost), Need: units[i].Need, Totals: u.Totals, Completed: t,
				Again: u.Again, FreshAfter: u.FreshAfter, Cost: u.Cost, Rollover: u.Rollover}
			cycle(i, t, t.Add(min(u.Again, t.UTC().Truncate(24*time.Hour).Add(24*time.Hour).Sub(t))))
		}
	}
	for i, b := range began { // a refresh still pending at the end
		if !b.IsZero() && units[i].Again > 0 {
			gaps[i] = max(gaps[i], last.Sub(b))
		}
	}
	return starts, gaps
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
