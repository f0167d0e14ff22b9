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

// Forecast runs the rule forward: each unit of order in turn sends all its
// requests, each as soon as the ledger (sent, the requests of the last hour,
// ascending) has room for it from from on, its first within the reserve
// unless Reserved; a request leaves the hour margin after an hour. It
// returns when each unit is expected to start, the zero time past horizon
// requests.
func Forecast(units []Unit, order []int, sent []time.Time, from time.Time, perHour, reserve, horizon int, margin time.Duration) []time.Time {
	starts := make([]time.Time, len(units))
	booked := slices.Clone(sent)
	last, n := from, 0
	for _, i := range order {
		u := units[i]
		limit := perHour
		if !u.Reserved {
			limit -= reserve
		}
		need := min(max(1, u.Need), perHour)
		limit = max(limit, need)
		left := max(need, u.Left)
		for sent := 0; sent < left && n < horizon; {
			k := need
			if sent > 0 {
				k = 1
			}
			// t is the earliest time from last on when k requests fit under limit.
			t := last
			if j := len(booked) - (limit - k) - 1; j >= 0 && booked[j].Add(time.Hour+margin).After(t) {
				t = booked[j].Add(time.Hour + margin)
			}
			if sent == 0 {
				starts[i] = t
			}
			booked = append(booked, slices.Repeat([]time.Time{t}, k)...)
			last, sent, n = t, sent+k, n+k
		}
	}
	return starts
}
