package schedule

import (
	"slices"
	"testing"
)

// Shorthands for the tables: a first-data candidate of d days and kind k,
// a stale one of value v, and so on; order is the unit's order.
func first(d int, k Kind, order int) Candidate {
	return Candidate{Class: FirstData, Days: d, Kind: k, Need: 1, Order: order, Critical: d == 1 && k != Walk}
}

func stale(v float64, order int) Candidate {
	return Candidate{Class: Stale, Value: v, Need: 1, Order: order}
}

func started(c Candidate) Candidate { c.Started = true; return c }

func need(c Candidate, n int) Candidate { c.Need = n; return c }

func critical(c Candidate) Candidate { c.Critical = true; return c }

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []Candidate
		want  []int
	}{
		{"classes in value order", []Candidate{
			{Class: Spare, Need: 1}, stale(0.9, 0), {Class: Urgent, Need: 1}, first(30, Walk, 9), {Class: Overdue, Need: 1, Order: 20},
		}, []int{4, 3, 2, 1, 0}},
		{"first data by days, then kind", []Candidate{
			first(7, Totals, 0), first(1, Walk, 1), first(1, Single, 2), first(1, Totals, 3), first(30, Totals, 4),
		}, []int{3, 2, 1, 0, 4}},
		{"first data of equal days and kind: a walk in progress first, then the units' order", []Candidate{
			first(1, Walk, 5), started(first(1, Walk, 7)), first(1, Walk, 2),
		}, []int{1, 2, 0}},
		{"stale by value, highest first", []Candidate{
			stale(0.1, 0), stale(0.5, 1), stale(0.25, 2),
		}, []int{1, 2, 0}},
		{"stale of equal value: a walk in progress first, then order", []Candidate{
			stale(0.5, 3), started(stale(0.5, 4)), stale(0.5, 1),
		}, []int{1, 2, 0}},
		{"value does not order first data", []Candidate{
			{Class: FirstData, Days: 1, Kind: Walk, Value: 9, Order: 1}, {Class: FirstData, Days: 1, Kind: Walk, Value: 1, Order: 0},
		}, []int{1, 0}},
		{"days and kind do not order stale units", []Candidate{
			{Class: Stale, Days: 30, Kind: Walk, Value: 0.2, Order: 0}, {Class: Stale, Days: 1, Kind: Totals, Value: 0.1, Order: 1},
		}, []int{0, 1}},
		{"equal in all: stable by order", []Candidate{
			{Class: Spare, Order: 2}, {Class: Spare, Order: 1}, {Class: Spare, Order: 1},
		}, []int{1, 2, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Order(tc.cands); !slices.Equal(got, tc.want) {
				t.Errorf("Order = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	room := func(n int) Budget { return Budget{Remaining: n} }
	for _, tc := range []struct {
		name   string
		cands  []Candidate
		budget Budget
		want   int
	}{
		{"nothing to send", nil, room(90), -1},
		{"the best candidate goes", []Candidate{stale(0.1, 0), first(1, Totals, 1)}, room(90), 1},
		{"paused: nothing goes", []Candidate{first(1, Totals, 0)}, Budget{Remaining: 90, Paused: true}, -1},
		{"no room: nothing goes", []Candidate{first(1, Totals, 0)}, room(0), -1},
		{"one request fits one room", []Candidate{first(1, Totals, 0)}, room(1), 0},
		{"a fetch sent whole needs its whole cost", []Candidate{need(first(1, Walk, 0), 5)}, room(4), -1},
		{"a fetch sent whole fits exactly", []Candidate{need(first(1, Walk, 0), 5)}, room(5), 0},
		{"nothing passes one that waits for the hour", []Candidate{need(first(1, Walk, 0), 5), first(7, Single, 1)}, room(4), -1},
		{"a zero need counts as one", []Candidate{need(first(1, Totals, 0), 0)}, room(0), -1},
		{"the reserve is kept from others", []Candidate{stale(0.5, 0)}, Budget{Remaining: 3, Reserve: 3}, -1},
		{"above the reserve others go", []Candidate{stale(0.5, 0)}, Budget{Remaining: 4, Reserve: 3}, 0},
		{"a critical request may use the reserve", []Candidate{critical(stale(0.5, 0))}, Budget{Remaining: 1, Reserve: 3}, 0},
		{"a critical one passes one that waits for the reserve", []Candidate{stale(0.9, 0), critical(stale(0.1, 1))}, Budget{Remaining: 2, Reserve: 3}, 1},
		{"one that waits only for the reserve, needing all the hour's room, is passed", []Candidate{stale(0.9, 0), critical(stale(0.1, 1))}, Budget{Remaining: 1, Reserve: 1}, 1},
		{"stale refreshes keep the headroom", []Candidate{stale(0.1, 0)}, Budget{Remaining: 9, Headroom: 9}, -1},
		{"above the headroom they go", []Candidate{stale(0.1, 0)}, Budget{Remaining: 10, Headroom: 9}, 0},
		{"overdue refreshes keep the headroom", []Candidate{{Class: Overdue, Need: 1}}, Budget{Remaining: 9, Headroom: 9}, -1},
		{"overdue refreshes above it go", []Candidate{{Class: Overdue, Need: 1}}, Budget{Remaining: 10, Headroom: 9}, 0},
		{"first data may use the headroom", []Candidate{first(30, Walk, 0)}, Budget{Remaining: 1, Headroom: 9}, 0},
		{"urgent requests may use the headroom", []Candidate{{Class: Urgent, Need: 1}}, Budget{Remaining: 1, Headroom: 9}, 0},
		{"critical stale refreshes keep the headroom, not the reserve", []Candidate{critical(stale(0.5, 0))}, Budget{Remaining: 10, Reserve: 5, Headroom: 9}, 0},
		{"critical stale refreshes at the headroom wait", []Candidate{critical(stale(0.5, 0))}, Budget{Remaining: 9, Reserve: 5, Headroom: 9}, -1},
		{"first data passes stale units that wait for the headroom", []Candidate{stale(0.9, 0), {Class: Spare, Need: 1}, first(30, Walk, 2)}, Budget{Remaining: 5, Headroom: 9}, 2},
		{"spare requests keep the headroom", []Candidate{{Class: Spare, Need: 1}}, Budget{Remaining: 9, Headroom: 9, SpareLeft: 50}, -1},
		{"spare requests within their share", []Candidate{{Class: Spare, Need: 1}}, Budget{Remaining: 10, Headroom: 9, SpareLeft: 1}, 0},
		{"spare requests past their share wait", []Candidate{{Class: Spare, Need: 1}}, Budget{Remaining: 90, SpareLeft: 0}, -1},
		{"spare keeps the reserve and the headroom", []Candidate{{Class: Spare, Need: 1}}, Budget{Remaining: 12, Reserve: 3, Headroom: 9, SpareLeft: 50}, -1},
		{"spare above both", []Candidate{{Class: Spare, Need: 1}}, Budget{Remaining: 13, Reserve: 3, Headroom: 9, SpareLeft: 50}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Next(tc.cands, tc.budget); got != tc.want {
				t.Errorf("Next = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRoom(t *testing.T) {
	b := Budget{Remaining: 20, Reserve: 5, Headroom: 2, SpareLeft: 4}
	for _, tc := range []struct {
		c    Candidate
		want int
	}{
		{first(7, Walk, 0), 15},
		{critical(first(1, Totals, 0)), 20},
		{Candidate{Class: Urgent}, 15},
		{stale(1, 0), 13},
		{critical(stale(1, 0)), 18},
		{Candidate{Class: Spare}, 4},
		{Candidate{Class: Spare, Critical: true}, 4},
	} {
		if got := Room(tc.c, b); got != tc.want {
			t.Errorf("Room(%+v) = %d, want %d", tc.c, got, tc.want)
		}
	}
	b.SpareLeft = 50
	if got := Room(Candidate{Class: Spare}, b); got != 13 {
		t.Errorf("spare room with a large share = %d, want 13 (reserve and headroom kept)", got)
	}
}

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{Overdue: "overdue", FirstData: "first data", Urgent: "day that just ended", Stale: "refresh", Spare: "day store history", Class(9): "unknown"} {
		if got := c.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", c, got, want)
		}
	}
}
