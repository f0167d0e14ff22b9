// Package schedule decides which analytics request the exporter sends next.
// It is a pure function of what could be sent (candidates), the request
// budget and nothing else: no clock, no I/O, no locks, so that tables pin it.
//
// The engine turns its units into candidates: the first request of a due
// unit, the next page of a walk in progress, a closed day for the day
// store, an audit. Next picks the one request worth the most that fits the
// budget now, and Order gives the whole queue for forecasts (the landing
// page's expected times).
//
// The value order (docs/design.md, "Value order"):
//
//  0. Overdue: a one-request unit whose data is an hour old or more (so
//     that no walk, however long, leaves the cheap units stale).
//  1. First data: units that never had data, by window length (1d
//     first), then kind (site totals, then one-request units, then page
//     walks), a walk in progress before one not started, then the units'
//     own order (project, source).
//  2. Urgent: after UTC midnight, the 1d totals and one-request units
//     still showing the day that ended.
//  3. Stale: due units with data, and the closed day that just ended for
//     the day store, by how wrong their data is per request still to
//     send; among equals a walk in progress first.
//  4. Spare: the day store's history, only with room nothing above can
//     use, within the share the planner left it.
//
// A request that does not fit the room it may use waits, and nothing below
// it jumps ahead, so a costlier request is never delayed by cheaper ones;
// the exceptions are the room kept before UTC midnight (Budget.Reserve)
// for rollover-critical requests, the headroom that stale refreshes leave,
// and the spare share: a request that waits only for those may be passed
// by one allowed to use that room.
package schedule

import (
	"cmp"
	"slices"
)

// Class is a candidate's tier in the value order; a lower class always
// goes first.
type Class int

// The classes, in value order.
const (
	// Overdue: a one-request unit whose data is an hour old or more goes
	// before everything, whatever walks are under way.
	Overdue Class = iota
	FirstData
	Urgent
	Stale
	Spare
)

// String names the class for the landing page.
func (c Class) String() string {
	switch c {
	case Overdue:
		return "overdue"
	case FirstData:
		return "first data"
	case Urgent:
		return "day that just ended"
	case Stale:
		return "refresh"
	case Spare:
		return "day store history"
	}
	return "unknown"
}

// Kind orders first-data candidates of one window length.
type Kind int

// The kinds, in value order.
const (
	// Totals is a site-wide totals unit (visitors or views): one request.
	Totals Kind = iota
	// Single is another unit that costs one request (or a few, all at once).
	Single
	// Walk is a page walk.
	Walk
)

// Candidate is one request the engine could send now.
type Candidate struct {
	Class Class
	// Days is the window length (first data).
	Days int
	// Kind is the unit's kind (first data).
	Kind Kind
	// Value is how wrong the unit's data is per request still to send
	// (stale): higher goes first.
	Value float64
	// Need is the room the candidate needs before its request may go: 1
	// for a step of a walk, the whole cost for a fetch that sends its
	// requests at once.
	Need int
	// Started marks a walk in progress.
	Started bool
	// Critical marks a request that may use the room kept for the UTC
	// rollover (a 1d totals or one-request unit).
	Critical bool
	// Order breaks ties: the units' order (project, source, window).
	Order int
}

// Budget is what the request budget allows now.
type Budget struct {
	// Remaining is the requests that fit the sliding hour now.
	Remaining int
	// Paused is set during a rate-limit pause: nothing is sent.
	Paused bool
	// Reserve is the room kept for rollover-critical requests (in the
	// hour before UTC midnight); others may not use it.
	Reserve int
	// Headroom is the room refreshes of data that has it (overdue or
	// stale) and spare requests always leave (above the reserve): first
	// data and urgent requests may use it, and so may a request retried
	// after a 5xx, so that what can wait does not spend the budget to the
	// last request.
	Headroom int
	// SpareLeft is how many more spare requests (day store history) the
	// planner's share for them allows in the sliding hour.
	SpareLeft int
}

// less orders candidates by value, best first.
func less(a, b Candidate) int {
	if c := cmp.Compare(a.Class, b.Class); c != 0 {
		return c
	}
	switch a.Class {
	case FirstData:
		if c := cmp.Compare(a.Days, b.Days); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
	case Stale:
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
	}
	if a.Started != b.Started {
		if a.Started {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.Order, b.Order)
}

// Order returns the indexes of cands in value order, best first.
func Order(cands []Candidate) []int {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return less(cands[i], cands[j]) })
	return idx
}

// Room is the room candidate c may use under budget b.
func Room(c Candidate, b Budget) int {
	room := b.Remaining
	if !c.Critical {
		room -= b.Reserve
	}
	if c.Class == Overdue || c.Class == Stale || c.Class == Spare {
		room -= b.Headroom
	}
	if c.Class == Spare {
		room = min(room, b.SpareLeft)
	}
	return room
}

// Next returns the index of the candidate to send now, or -1 when none
// may go: the budget is paused, nothing is a candidate, or the best
// candidate does not fit the room it may use. Candidates behind one that
// waits for room do not jump ahead, unless it waits only for the rollover
// reserve.
func Next(cands []Candidate, b Budget) int {
	if b.Paused {
		return -1
	}
	for _, i := range Order(cands) {
		c := cands[i]
		need := max(1, c.Need)
		if need <= Room(c, b) {
			return i
		}
		if need > b.Remaining {
			return -1 // waits for the hour to have room: nothing passes it
		}
		// Waits only for the rollover reserve, the headroom or the
		// spare share: a candidate that may use that room may pass.
	}
	return -1
}
