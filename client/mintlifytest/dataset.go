package mintlifytest

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Dataset holds a project's analytics, per UTC day: for each path the
// unique human visitors, unique AI visitors and the deduplicated total
// (Set), and the page views (SetViews) and feedback (SetFeedback); the
// assistant's queries by caller (SetCallerStats); searches per term
// (SetSearch); and assistant conversation turns (AddTurn). Per-path values
// are stored compactly as int32 columns, one column set per day. A Dataset
// is safe for concurrent use and may be changed while a Server serves it.
type Dataset struct {
	mu      sync.RWMutex
	version uint64
	index   map[string]int32
	paths   []string
	days    map[int32]*dayColumns // key: days since 1970-01-01
	x       *extras               // the other signals; nil until one is set
	// returning is SetReturning's share: 0 adds unique visitors across
	// days.
	returning float64
}

// SetReturning makes unique visitors not add up across days: over a range
// of n days a path's visitors are the sum of its days divided by
// 1 + r·(n−1), as if a share r of each day's visitors had come on another
// day of the range too. 0, the default, adds days up. An assumption of the
// simulations that must not be built on the planner's model (a window of
// N days moving exactly 1/N as fast as 1d); the API's real overlap is not
// known. Page views always add up.
func (d *Dataset) SetReturning(r float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.returning = max(0, r)
	d.version++
}

// dayColumns holds one day's values, indexed by path number. A column may be
// shorter than the path list: missing entries are zero.
type dayColumns struct {
	human, ai, total []int32
}

// NewDataset returns an empty Dataset.
func NewDataset() *Dataset {
	return &Dataset{index: make(map[string]int32), days: make(map[int32]*dayColumns)}
}

// Set records the counts of one path on one day (t is reduced to its UTC
// date), replacing any earlier value. It panics when a count is negative or
// above math.MaxInt32, or when total is outside [max(human, ai), human+ai]:
// those are bugs in the test that calls it.
func (d *Dataset) Set(day time.Time, path string, human, ai, total int64) {
	for _, v := range []int64{human, ai, total} {
		if v < 0 || v > math.MaxInt32 {
			panic(fmt.Sprintf("mintlifytest: Dataset.Set(%q): count %d out of range [0, %d]", path, v, math.MaxInt32))
		}
	}
	if total < max(human, ai) || total > human+ai {
		panic(fmt.Sprintf("mintlifytest: Dataset.Set(%q): total %d outside [max(human, ai), human+ai] = [%d, %d]",
			path, total, max(human, ai), human+ai))
	}
	dn := dayNumber(day)
	d.mu.Lock()
	defer d.mu.Unlock()
	i := d.pathIndex(path)
	c := d.days[dn]
	if c == nil {
		c = &dayColumns{}
		d.days[dn] = c
	}
	if int(i) >= len(c.human) {
		n := max(int(i)+1, len(d.paths))
		c.human = grow(c.human, n)
		c.ai = grow(c.ai, n)
		c.total = grow(c.total, n)
	}
	c.human[i], c.ai[i], c.total[i] = int32(human), int32(ai), int32(total)
	d.version++
}

// grow returns s extended with zeros to length n.
func grow(s []int32, n int) []int32 {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	out := make([]int32, n, n+n/4)
	copy(out, s)
	return out
}

// dayNumber is the number of whole days from 1970-01-01 to t's UTC date.
func dayNumber(t time.Time) int32 {
	y, m, dd := t.UTC().Date()
	u := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC).Unix()
	return int32(u / 86400)
}

// dayTime is the inverse of dayNumber: midnight UTC of day n.
func dayTime(n int32) time.Time { return time.Unix(int64(n)*86400, 0).UTC() }

// snapshotVersion returns the dataset's change counter.
func (d *Dataset) snapshotVersion() uint64 {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.version
}

// sums adds up every path's daily values over the days in [from, to) and
// returns them indexed by path number, with the path list.
func (d *Dataset) sums(from, to int32) (paths []string, h, a, t []int64) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	n := len(d.paths)
	h, a, t = sumDays(d.days, n, from, to)
	return d.paths[:n:n], h, a, t
}

// sumDays adds up the daily columns of days over the days in [from, to),
// for n paths. The caller holds the Dataset's lock.
func sumDays(days map[int32]*dayColumns, n int, from, to int32) (h, a, t []int64) {
	h, a, t = make([]int64, n), make([]int64, n), make([]int64, n)
	for dn, c := range days {
		if dn < from || dn >= to {
			continue
		}
		for i, v := range c.human {
			h[i] += int64(v)
		}
		for i, v := range c.ai {
			a[i] += int64(v)
		}
		for i, v := range c.total {
			t[i] += int64(v)
		}
	}
	return h, a, t
}
