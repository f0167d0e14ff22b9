package schedule

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    Unit
		want float64
	}{
		{"1d without data, one request", Unit{Days: 1, Fresh: true, Left: 1}, 9},
		{"7d without data, one request", Unit{Days: 7, Fresh: true, Left: 1}, 1 + 8.0/7},
		{"30d without data, a walk of 8", Unit{Days: 30, Fresh: true, Left: 8}, (1 + 8.0/30) / 8},
		{"a tenth changed, a walk of 4", Unit{Days: 7, Changed: 0.1, Left: 4}, 0.025},
		{"a closed day of 2 pages", Unit{Days: 1, Worth: 0.5, Left: 2}, 0.25},
		{"no requests left counts as one", Unit{Days: 1, Changed: 0.5}, 0.5},
		{"Fresh outranks Worth", Unit{Days: 1, Fresh: true, Worth: 0.5, Left: 1}, 9},
		{"a 1d walk never measured (4 requests) before a 7d one-request unit", Unit{Days: 1, Fresh: true, Left: 4}, 2.25},
	} {
		if got := Value(tc.u); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: Value = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The orders: one-request units of any window before page walks
// without data; at 500 paths (2 pages) a 1d walk before longer windows'
// one-request units; totals first among equals, after a walk in progress.
func TestOrder(t *testing.T) {
	units := []Unit{
		0: {Days: 7, Fresh: true, Left: 8},               // a 7d walk without data
		1: {Days: 30, Fresh: true, Left: 1},              // a 30d one-request unit without data
		2: {Days: 1, Fresh: true, Left: 1},               // a 1d one-request unit
		3: {Days: 1, Fresh: true, Left: 1, Totals: true}, // 1d totals
		4: {Days: 1, Fresh: true, Left: 2},               // a 1d walk of 2 pages
		5: {Days: 7, Fresh: true, Left: 1},               // a 7d one-request unit
		6: {Days: 1, Changed: 0.9, Left: 1},              // 1d data 21 hours old
		7: {Days: 1, Fresh: true, Left: 1, Started: true},
	}
	if got, want := Order(units), []int{7, 3, 2, 4, 5, 1, 6, 0}; !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
}

func TestNext(t *testing.T) {
	walk := Unit{Days: 1, Changed: 0.5, Left: 10, Need: 1}       // worth 0.05
	whole := Unit{Days: 1, Changed: 0.5, Left: 5, Need: 5}       // worth 0.1, sent at once
	first := Unit{Days: 7, Fresh: true, Left: 1, Reserved: true} // worth 2.14
	for _, tc := range []struct {
		name  string
		units []Unit
		b     Budget
		want  int
	}{
		{"nothing to send", nil, Budget{Remaining: 90}, -1},
		{"the best has room", []Unit{walk, first}, Budget{Remaining: 90}, 1},
		{"paused", []Unit{walk, first}, Budget{Remaining: 90, Paused: true}, -1},
		{"no room at all", []Unit{walk}, Budget{Remaining: 0}, -1},
		{"the reserve is kept from refreshes", []Unit{walk}, Budget{Remaining: 5, Reserve: 5}, -1},
		{"one request over the reserve", []Unit{walk}, Budget{Remaining: 6, Reserve: 5}, 0},
		{"first data may use the reserve", []Unit{walk, first}, Budget{Remaining: 1, Reserve: 5}, 1},
		{"a fetch sent whole waits for its room; nothing passes it", []Unit{walk, whole}, Budget{Remaining: 4}, -1},
		{"a fetch sent whole with its room", []Unit{walk, whole}, Budget{Remaining: 5}, 1},
		{"kept from the reserve, passed by what may use it", []Unit{whole, first}, Budget{Remaining: 3, Reserve: 3}, 1},
	} {
		if got := Next(tc.units, tc.b); got != tc.want {
			t.Errorf("%s: Next = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestForecast(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	// The hour holds 3 requests, at 11:10, 11:20 and 11:30; the budget is 4.
	sent := []time.Time{now.Add(-50 * time.Minute), now.Add(-40 * time.Minute), now.Add(-30 * time.Minute)}
	units := []Unit{
		{Days: 1, Fresh: true, Left: 1, Need: 1, Reserved: true}, // goes now: the last request of the hour
		{Days: 1, Changed: 0.2, Left: 2, Need: 1},                // when 11:10 and 11:20 leave the hour
		{Days: 7, Changed: 0.09, Left: 1, Need: 1},               // when 11:30 leaves
		{Days: 30, Changed: 0.01, Left: 1, Need: 1},              // past the horizon
	}
	got, _ := Forecast(units, sent, now, 4, 0, 0, 4, time.Second)
	want := []time.Time{now, now.Add(-50*time.Minute + time.Hour + time.Second), now.Add(-30*time.Minute + time.Hour + time.Second), {}}
	if !slices.Equal(got, want) {
		t.Errorf("Forecast = %v, want %v", got, want)
	}
	// A reserve of 1 keeps the refresh of data out of the last request.
	got, _ = Forecast(units[1:2], sent, now, 4, 1, 1, 10, time.Second)
	if want := now.Add(-50*time.Minute + time.Hour + time.Second); !got[0].Equal(want) {
		t.Errorf("with a reserve of 1: %v, want %v", got[0], want)
	}
	// A fetch sent whole starts when all its requests fit.
	got, _ = Forecast([]Unit{{Days: 1, Changed: 1, Left: 3, Need: 3, Reserved: true}}, sent, now, 4, 0, 0, 10, time.Second)
	if want := now.Add(-40*time.Minute + time.Hour + time.Second); !got[0].Equal(want) {
		t.Errorf("a fetch of 3 sent whole: %v, want %v", got[0], want)
	}
}

// TestForecastOverTime: the rule run forward values each unit at the time
// of the hour's next room: a unit not eligible yet enters at From, and one
// whose data will count as none goes before what it then outranks.
func TestForecastOverTime(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	hour := func(k int) []time.Time { // the hour full: 2 requests, at 11:30 and 11:45
		return []time.Time{now.Add(-30 * time.Minute), now.Add(-15 * time.Minute)}[:k]
	}
	walk := Unit{Days: 30, Fresh: true, Left: 3, Need: 1}  // worth 0.42 a request: the next 3 requests
	stale := Unit{Days: 1, Changed: 0.1, Left: 1, Need: 1} // worth 0.1: after the walk
	later := Unit{Days: 1, Changed: 0.8, Left: 1, Need: 1, From: now.Add(40 * time.Minute)}
	for _, tc := range []struct {
		name  string
		units []Unit
		want  []time.Time
	}{
		{"by value", []Unit{stale, walk}, []time.Time{now.Add(105*time.Minute + 2*time.Second), now.Add(30*time.Minute + time.Second)}},
		{"Fresh from 12:40: before the walk's second request",
			[]Unit{{Days: 1, Changed: 0.1, Left: 1, Need: 1, Completed: now.Add(-20 * time.Minute), FreshAfter: time.Hour}, walk},
			[]time.Time{now.Add(45*time.Minute + time.Second), now.Add(30*time.Minute + time.Second)}},
		{"eligible at 12:40, worth more than the walk's second request", []Unit{later, walk},
			[]time.Time{now.Add(45*time.Minute + time.Second), now.Add(30*time.Minute + time.Second)}},
		{"a walk is worth more as it goes: half changed, eligible once it started, waits for its end",
			[]Unit{{Days: 1, Changed: 0.5, Left: 1, Need: 1, From: now.Add(35 * time.Minute)}, walk},
			[]time.Time{now.Add(105*time.Minute + 2*time.Second), now.Add(30*time.Minute + time.Second)}},
		{"eligible later, alone: at From", []Unit{later}, []time.Time{now.Add(40 * time.Minute)}},
		{"Fresh before it is eligible", []Unit{{Days: 1, Changed: 0.1, Left: 1, Need: 1, From: now.Add(20 * time.Minute),
			Completed: now.Add(-50 * time.Minute), FreshAfter: time.Hour}, walk}, []time.Time{now.Add(30*time.Minute + time.Second), now.Add(45*time.Minute + time.Second)}},
	} {
		got, _ := Forecast(tc.units, hour(2), now, 2, 0, 0, 10, time.Second)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Forecast = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Rollover: from midnight the unit may use the reserve (1 of 2 here).
	now = now.Add(12 * time.Hour)
	u := Unit{Days: 1, Changed: 0.1, Left: 1, Need: 1, Completed: now.Add(-time.Hour), Rollover: true}
	if got, _ := Forecast([]Unit{u}, hour(1), now, 2, 1, 1, 10, time.Second); !got[0].Equal(now) {
		t.Errorf("Fresh and Reserved at once: %v, want now", got[0])
	}
	u.Rollover, u.FreshAfter = false, time.Hour
	if got, _ := Forecast([]Unit{u}, hour(1), now, 2, 1, 1, 10, time.Second); !got[0].Equal(now.Add(30*time.Minute + time.Second)) {
		t.Errorf("Fresh, not Reserved: %v, want when 23:30 leaves the hour", got[0])
	}
}

// TestForecastValuesAtTheReservesRoom: units are valued when an ordinary
// request next has room, past the reserve: at 12:30:01 here (11:30 leaves
// the hour; the other request is the reserve), when the second unit's data
// counts as none, to the second.
func TestForecastValuesAtTheReservesRoom(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	room := now.Add(30*time.Minute + time.Second)
	units := []Unit{{Days: 1, Changed: 0.1, Left: 1, Need: 1}, {Days: 1, Changed: 0.05, Left: 1, Need: 1, Completed: room.Add(-time.Hour), FreshAfter: time.Hour}}
	got, _ := Forecast(units, []time.Time{now.Add(-30 * time.Minute)}, now, 2, 1, 1, 10, time.Second)
	if want := []time.Time{room.Add(time.Hour + time.Second), room}; !slices.Equal(got, want) {
		t.Errorf("Forecast = %v, want %v", got, want)
	}
}

// TestForecastSeesTheEveReserve: in the hour before UTC midnight the reserve
// is eve's, and from midnight the ordinary one again.
func TestForecastSeesTheEveReserve(t *testing.T) {
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	u := []Unit{{Days: 1, Changed: 1, Left: 1, Need: 1}}
	for _, tc := range []struct {
		name string
		sent []time.Time
		now  time.Time
		want time.Time
	}{
		{"before the eve", []time.Time{at(21, 20), at(21, 20), at(21, 40)}, at(22, 10), at(22, 10)},
		{"in the eve", []time.Time{at(22, 20), at(22, 20), at(22, 40)}, at(23, 10), at(23, 20).Add(time.Second)},
		{"the eve starts", []time.Time{at(22, 5), at(22, 5), at(22, 30), at(22, 30)}, at(22, 50), at(23, 30).Add(time.Second)},
		{"midnight ends it", []time.Time{at(23, 30), at(23, 30), at(23, 30)}, at(23, 40), at(24, 0)},
	} {
		if got, _ := Forecast(u, tc.sent, tc.now, 4, 0, 2, 10, time.Second); !got[0].Equal(tc.want) {
			t.Errorf("%s: Forecast = %s, want %s", tc.name, got[0].Format(time.TimeOnly), tc.want.Format(time.TimeOnly))
		}
	}
}

// TestForecastRunsAgeForward: a unit whose data ages is valued at the time
// of each room (every 15 forecast minutes), so it passes a unit of fixed
// worth once its changed share is larger; and once a UTC midnight moves its
// window, it counts at least a day's share of it.
func TestForecastRunsAgeForward(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	room := func(k int) time.Time { return now.Add(time.Duration(k) * (time.Hour + time.Second)) }
	first := Unit{Days: 30, Changed: 0.09, Left: 1, Need: 1}
	fixed := Unit{Days: 30, Changed: 0.06, Left: 1, Need: 1}
	// 1h old at 12:00 (0.042 of a day), 2h old at the next room: 0.083
	aging := Unit{Days: 1, Changed: 1.0 / 24, Left: 1, Need: 1, Completed: now.Add(-time.Hour)}
	got, _ := Forecast([]Unit{first, fixed, aging}, nil, now, 1, 0, 0, 10, time.Second)
	if want := []time.Time{room(0), room(2), room(1)}; !slices.Equal(got, want) {
		t.Errorf("growing with age: Forecast = %v, want %v", got, want)
	}
	// 7d data read at 23:00 changes by 0.006 an hour, but from midnight 1/7
	// (0.14) of it is another day's: after 0.2, before 0.1.
	eve := time.Date(2026, 5, 1, 23, 30, 0, 0, time.UTC)
	week := Unit{Days: 7, Changed: 0.003, Left: 1, Need: 1, Completed: eve.Add(-30 * time.Minute)}
	fixedAt := func(c float64) Unit { return Unit{Days: 30, Changed: c, Left: 1, Need: 1} }
	got, _ = Forecast([]Unit{fixedAt(0.3), fixedAt(0.2), fixedAt(0.1), week}, nil, eve, 1, 0, 0, 10, time.Second)
	if want := []time.Time{eve, eve.Add(time.Hour + time.Second), eve.Add(3 * (time.Hour + time.Second)), eve.Add(2 * (time.Hour + time.Second))}; !slices.Equal(got, want) {
		t.Errorf("a window moved at midnight: Forecast = %v, want %v", got, want)
	}
	if v := Value(Unit{Worth: 0.5, Changed: 1, Left: 2}); v != 0.25 {
		t.Errorf("a fixed range's read worth 0.5 at 2 requests: Value = %v, want 0.25", v)
	}
}

// TestForecastRefreshesAgain: a unit refreshed in the forecast comes back
// (eligible Again later, its data counting as none FreshAfter later or, for
// a Rollover unit, at midnight with the reserve), so it can keep another
// from its first start; the gaps are the longest time between two starts of
// each unit, up to the forecast's end for one still waiting.
func TestForecastRefreshesAgain(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	room := time.Hour + time.Second
	hourly := Unit{Days: 1, Fresh: true, Left: 1, Need: 1, Again: 15 * time.Minute, FreshAfter: time.Hour, Cost: 1}
	month := Unit{Days: 30, Changed: 0.5, Left: 1, Need: 1}
	starts, gaps := Forecast([]Unit{hourly, month}, nil, now, 1, 0, 0, 5, time.Second)
	if want := []time.Time{now, {}}; !slices.Equal(starts, want) {
		t.Errorf("held to an hour: starts %v, want %v", starts, want)
	}
	if want := []time.Duration{room, 0}; !slices.Equal(gaps, want) {
		t.Errorf("held to an hour: gaps %v, want %v", gaps, want)
	}
	// A unit that comes back keeps its gap growing while it waits: a month
	// read first waits behind the hourly unit, and the forecast ends 6 hours on.
	month.Again, month.Cost, month.Changed = 15*time.Minute, 1, 10
	starts, gaps = Forecast([]Unit{hourly, month}, nil, now, 1, 0, 0, 100, time.Second)
	if want := []time.Time{now.Add(room), now}; !slices.Equal(starts, want) {
		t.Errorf("held to an hour, after the month: starts %v, want %v", starts, want)
	}
	if want := []time.Duration{room, 6 * room}; !slices.Equal(gaps, want) {
		t.Errorf("held to an hour, after the month: gaps %v, want %v (the month waits to the end, 6 hours on)", gaps, want)
	}
	hourly.Again, month.Again, month.Changed = 0, 0, 0.5 // no later refreshes: the month gets the next room
	if starts, gaps = Forecast([]Unit{hourly, month}, nil, now, 1, 0, 0, 5, time.Second); !starts[1].Equal(now.Add(room)) || gaps[0] != 0 {
		t.Errorf("refreshed once: the month at %v, want %v; the hourly unit's gap %v, want 0", starts[1], now.Add(room), gaps[0])
	}
	// A read of a fixed range (Worth) goes by its worth, within the day.
	read := Unit{Days: 1, Worth: 0.01, Left: 1, Need: 1}
	if starts, _ = Forecast([]Unit{hourly, read}, nil, now, 1, 0, 0, 5, time.Second); !starts[1].Equal(now.Add(room)) {
		t.Errorf("a read after a unit refreshed once: at %v, want %v", starts[1], now.Add(room))
	}
	// Read at 23:10, a 1d Rollover unit reads the new day at midnight from
	// the reserve (1 of 2), so the month waits for the room after it.
	eve := time.Date(2026, 5, 1, 23, 10, 0, 0, time.UTC)
	midnight := eve.Add(50 * time.Minute)
	day := Unit{Days: 1, Changed: 0.95, Left: 1, Need: 1, Again: 15 * time.Minute, Cost: 1, Rollover: true, Completed: eve.Add(-10 * time.Minute)}
	month.Changed = 0.9
	if _, gaps = Forecast([]Unit{day, month}, nil, eve, 2, 1, 1, 2, time.Second); gaps[0] != 50*time.Minute {
		t.Errorf("rollover: the 1d unit's gap %v, want 50m (again at midnight)", gaps[0])
	}
	starts, gaps = Forecast([]Unit{day, month}, nil, eve, 2, 1, 1, 3, time.Second)
	if want := []time.Time{eve, midnight.Add(room)}; !slices.Equal(starts, want) {
		t.Errorf("rollover: starts %v, want %v", starts, want)
	}
	if want := midnight.Add(room).Sub(midnight); gaps[0] != want {
		t.Errorf("rollover: the 1d unit's gap %v, want %v (waiting since midnight at the end)", gaps[0], want)
	}
}

// TestForecastEnds: the forecast goes on past a day until every unit but the
// reads of fixed ranges has a start, and no further.
func TestForecastEnds(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	hourly := Unit{Days: 1, Fresh: true, Left: 1, Need: 1, Again: 15 * time.Minute, FreshAfter: time.Hour, Cost: 1}
	late := Unit{Days: 1, Changed: 1, Left: 1, Need: 1, From: now.Add(30 * time.Hour)}
	read := Unit{Days: 1, Worth: 0.5, Left: 1, Need: 1, From: now.Add(40 * time.Hour)}
	starts, _ := Forecast([]Unit{hourly, late, read}, nil, now, 2, 0, 0, 1000, time.Second)
	if !starts[0].Equal(now) || starts[1].Sub(late.From).Abs() > time.Minute || !starts[2].IsZero() {
		t.Errorf("Forecast = %v, want now, about %v (the second request of an hour) and none", starts, late.From)
	}
}

// TestForecastValuesAgainEvery15Minutes: the forecast values aging units
// again once 15 minutes have passed since it last did, not sooner.
func TestForecastValuesAgainEvery15Minutes(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	// 2h old at 12:00 (0.0833 of a day), 0.0868 at 12:05, 0.0938 at 12:15
	aging := Unit{Days: 1, Changed: 2.0 / 24, Left: 1, Need: 1, Completed: now.Add(-2 * time.Hour)}
	for _, tc := range []struct {
		name  string
		sent  time.Time // the hour's one request: its room comes an hour and a second later
		fixed float64
		want  int // the unit that goes first
	}{
		{"at 12:05, valued as at 12:00", now.Add(-55*time.Minute - time.Second), 0.085, 1},
		{"at 12:15, valued again", now.Add(-45*time.Minute - time.Second), 0.09, 0},
	} {
		units := []Unit{aging, {Days: 30, Changed: tc.fixed, Left: 1, Need: 1}}
		got, _ := Forecast(units, []time.Time{tc.sent}, now, 1, 0, 0, 1, time.Second)
		if got[tc.want].IsZero() || !got[1-tc.want].IsZero() {
			t.Errorf("%s: Forecast = %v, want unit %d first", tc.name, got, tc.want)
		}
	}
	// Refreshed at 23:30, a unit eligible again 2 hours later is so at midnight.
	eve := time.Date(2026, 5, 1, 23, 30, 0, 0, time.UTC)
	u := Unit{Days: 1, Changed: 1, Left: 1, Need: 1, Again: 2 * time.Hour, Cost: 1, Completed: eve.Add(-time.Hour)}
	if _, gaps := Forecast([]Unit{u}, nil, eve, 10, 0, 0, 2, time.Second); gaps[0] != 30*time.Minute {
		t.Errorf("again at midnight: gap %v, want 30m", gaps[0])
	}
}
