package mintlifytest

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// Counts holds unique visitor counts or page views. For visitors, Total is
// deduplicated across human and AI traffic: max(Human, AI) <= Total <=
// Human+AI. For views (events), Total >= Human+AI.
type Counts struct{ Human, AI, Total int64 }

// Row is one path's counts in a visitors or views answer.
type Row struct {
	Path string
	Counts
}

// Bounds of a range of day numbers when a parameter is absent.
const (
	beginningOfData = math.MinInt32
	endOfData       = math.MaxInt32
)

// rangeKey identifies one computed answer: a project and a half-open range
// of day numbers.
type rangeKey struct {
	project  string
	views    bool
	from, to int32
}

// rangeResult is the full, sorted answer for one range, computed once and
// shared by every page request and by Server.Visitors.
type rangeResult struct {
	ds      *Dataset
	views   bool // page views rather than unique visitors
	from    int32
	to      int32
	once    sync.Once
	version uint64
	totals  Counts
	rows    []Row
}

// rangeCache keeps recent rangeResults so that walking hundreds of pages of
// a large project sorts its rows once.
type rangeCache struct {
	mu sync.Mutex
	m  map[rangeKey]*rangeResult
}

// maxCachedRanges bounds the cache; it is emptied when it grows past this.
const maxCachedRanges = 256

// get returns the answer for the range, computing it if the cache has no
// answer for the dataset's current version.
func (c *rangeCache) get(project string, ds *Dataset, from, to int32) *rangeResult {
	return c.getKind(project, ds, false, from, to)
}

// getKind is get for unique visitors (views false) or page views.
func (c *rangeCache) getKind(project string, ds *Dataset, views bool, from, to int32) *rangeResult {
	if ds == nil {
		return &rangeResult{}
	}
	key := rangeKey{project, views, from, to}
	v := ds.snapshotVersion()
	c.mu.Lock()
	r := c.m[key]
	if r == nil || r.ds != ds || r.stale(v) {
		if c.m == nil || len(c.m) >= maxCachedRanges {
			c.m = make(map[rangeKey]*rangeResult)
		}
		r = &rangeResult{ds: ds, views: views, from: from, to: to, version: v}
		c.m[key] = r
	}
	c.mu.Unlock()
	r.once.Do(r.compute)
	return r
}

// stale reports whether r was made for another version of its dataset. The
// version is the one seen before summing, so a change racing with compute
// only causes one extra recomputation later.
func (r *rangeResult) stale(current uint64) bool { return r.version != current }

// forget drops every cached answer of a project.
func (c *rangeCache) forget(project string) {
	c.mu.Lock()
	for k := range c.m {
		if k.project == project {
			delete(c.m, k)
		}
	}
	c.mu.Unlock()
}

// compute sums the range, drops paths without visitors (or views), sorts
// the rows by total descending then path ascending, and derives the site
// totals: for views, the sums over paths.
func (r *rangeResult) compute() {
	var paths []string
	var h, a, t []int64
	if r.views {
		paths, h, a, t = r.ds.viewSums(r.from, r.to)
	} else {
		paths, h, a, t = r.ds.sums(r.from, r.to)
		r.ds.mu.RLock()
		share := r.ds.returning
		r.ds.mu.RUnlock()
		if n := int64(r.to - r.from); share > 0 && n > 1 {
			div := 1 + share*float64(n-1)
			for i := range t {
				h[i], a[i] = int64(float64(h[i])/div), int64(float64(a[i])/div)
				t[i] = min(max(int64(float64(t[i])/div), h[i], a[i]), h[i]+a[i])
			}
		}
	}
	n := 0
	for _, v := range t {
		if v > 0 {
			n++
		}
	}
	rows := make([]Row, 0, n)
	for i, v := range t {
		if v > 0 {
			rows = append(rows, Row{Path: paths[i], Counts: Counts{Human: h[i], AI: a[i], Total: v}})
		}
	}
	slices.SortFunc(rows, func(x, y Row) int {
		if c := cmp.Compare(y.Total, x.Total); c != 0 {
			return c
		}
		return cmp.Compare(x.Path, y.Path)
	})
	r.rows = rows
	if r.views {
		for _, row := range rows {
			r.totals.Human += row.Human
			r.totals.AI += row.AI
			r.totals.Total += row.Total
		}
		return
	}
	r.totals = siteTotals(rows)
}

// siteTotals derives site-wide unique visitors from the per-path counts of a
// range. Unique visitors are not additive (a visitor reads several pages), so
// each site figure is three fifths of the sum over paths, rounded down, but
// never less than the largest path's figure; the total is then clamped into
// [max(human, ai), human+ai]. With two or more paths with visitors this makes
// every site figure strictly smaller than the sum over paths.
func siteTotals(rows []Row) Counts {
	var sum, top Counts
	for _, r := range rows {
		sum.Human += r.Human
		sum.AI += r.AI
		sum.Total += r.Total
		top.Human = max(top.Human, r.Human)
		top.AI = max(top.AI, r.AI)
		top.Total = max(top.Total, r.Total)
	}
	site := Counts{
		Human: max(sum.Human*3/5, top.Human),
		AI:    max(sum.AI*3/5, top.AI),
		Total: max(sum.Total*3/5, top.Total),
	}
	site.Total = min(max(site.Total, site.Human, site.AI), site.Human+site.AI)
	return site
}
