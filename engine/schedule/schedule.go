// Package schedule picks the next analytics request, a pure function of the
// candidates and the budget; docs/dev/design.md ("Value order") explains the order.
package schedule

import (
	"cmp"
	"slices"
)

// Class is a candidate's tier in the value order; a lower class goes first.
type Class int

// The classes, in value order.
const (
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
	Totals Kind = iota // site-wide totals: one request
	Single             // another unit sent at once, usually one request
	Walk
)

// Candidate is one request the engine could send now.
type Candidate struct {
	Class    Class
	Days     int     // window length, for first data
	Kind     Kind    // for first data
	Value    float64 // for stale: how wrong the data is per request still to send
	Need     int     // room needed: 1 for a walk's step, all of a fetch sent at once
	Started  bool    // a walk in progress
	Critical bool    // may use the room kept for the UTC rollover
	Order    int     // ties: the units' order (project, source, window)
}

// Budget is what the request budget allows now.
type Budget struct {
	Remaining int
	Paused    bool // a rate-limit pause: nothing is sent
	Reserve   int  // kept for rollover-critical requests before UTC midnight
	// Headroom is left by overdue, stale and spare requests for what cannot wait.
	Headroom  int
	SpareLeft int // spare requests the planner's share still allows
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

// Next returns the index of the candidate to send now, or -1 when none may
// go. A candidate that waits for room is not passed by those behind it,
// except by ones allowed the reserve, headroom or spare room it lacks.
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
	}
	return -1
}
