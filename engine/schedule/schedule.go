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
	// For Forecast: From is when the unit becomes eligible (zero: now),
	// FreshAt when its data will count as none (zero: never), then Reserved
	// too when FreshReserved.
	From, FreshAt time.Time
	FreshReserved bool
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
// to the unit worth most by then, among those eligible by then (From), Fresh
// from its FreshAt; the request goes as soon as the ledger has room for it
// (for Need of them at once), within the reserve (eve in the hour before a
// UTC midnight) unless Reserved; a request leaves the hour margin after an
// hour. It returns when each unit is expected to start, the zero time past
// horizon requests.
func Forecast(units []Unit, sent []time.Time, from time.Time, perHour, reserve, eve, horizon int, margin time.Duration) []time.Time {
	starts := make([]time.Time, len(units))
	booked := slices.Clone(sent)
	last, n := from, 0
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
	// Each unit becomes eligible at From and Fresh at FreshAt: events in
	// time order; ready holds the eligible units, best first.
	type event struct {
		t     time.Time
		i     int
		fresh bool
	}
	var events []event
	cur := slices.Clone(units)
	for i, u := range units {
		events = append(events, event{u.From, i, false})
		if !u.FreshAt.IsZero() && !u.Fresh {
			events = append(events, event{u.FreshAt, i, true})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int { return a.t.Compare(b.t) })
	less := func(i, j int) int {
		a, b := cur[i], cur[j]
		return cmp.Or(cmp.Compare(Value(b), Value(a)), boolFirst(a.Started, b.Started), boolFirst(a.Totals, b.Totals), cmp.Compare(i, j))
	}
	var ready []int
	for n < horizon && (len(ready) > 0 || len(events) > 0) {
		t := at(1, false)
		if len(ready) == 0 && events[0].t.After(t) {
			t, last = events[0].t, maxTime(last, events[0].t)
		}
		for len(events) > 0 && !events[0].t.After(t) {
			ev := events[0]
			events = events[1:]
			if ev.fresh {
				cur[ev.i].Fresh, cur[ev.i].Reserved = true, cur[ev.i].Reserved || cur[ev.i].FreshReserved
				pos := slices.Index(ready, ev.i)
				if pos < 0 {
					continue // it becomes eligible later, or has gone
				}
				ready = slices.Delete(ready, pos, pos+1)
			}
			pos, _ := slices.BinarySearchFunc(ready, ev.i, less)
			ready = slices.Insert(ready, pos, ev.i)
		}
		if len(ready) == 0 {
			continue // only Fresh events of units eligible later
		}
		i := ready[0]
		ready = ready[1:]
		u := &cur[i]
		need := min(max(1, u.Need), perHour)
		t = at(need, u.Reserved)
		if starts[i].IsZero() {
			t = maxTime(t, u.From)
			starts[i] = t
		}
		booked = append(booked, slices.Repeat([]time.Time{t}, need)...)
		last, n = t, n+need
		// A walk's next request is chosen again, worth more with fewer left.
		if u.Left, u.Need, u.Started = max(need, u.Left)-need, 1, true; u.Left > 0 {
			pos, _ := slices.BinarySearchFunc(ready, i, less)
			ready = slices.Insert(ready, pos, i)
		}
	}
	return starts
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
