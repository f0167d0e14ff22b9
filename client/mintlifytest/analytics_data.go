package mintlifytest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// This file holds the analytics of a Dataset other than unique visitors:
// page views, assistant caller stats, feedback per page, search terms and
// assistant conversation turns, each per UTC day.

// extras is the part of a Dataset beyond unique visitors. Its fields are
// guarded by the Dataset's mutex.
type extras struct {
	views    map[int32]*dayColumns             // day -> per path human, ai, total views
	callers  map[int32]CallerStats             // day -> caller stats
	feedback map[int32]map[int32]feedbackCount // day -> path index -> counts
	searches map[int32]map[string]searchCount  // day -> term -> counts
	topPage  map[string]string                 // term -> top clicked page
	turns    []Turn                            // sorted by ID, descending, when sorted
	sorted   bool
	turnIDs  map[string]bool
	turnSeq  uint64
}

type feedbackCount struct{ up, down, code, total int64 }

type searchCount struct{ hits, clicks int64 }

// CallerStats is what assistant caller stats answers: assistant queries by
// caller. Total is at least Web+API+Other.
type CallerStats struct{ Web, API, Other, Total int64 }

// PageFeedback is one row of feedback by page. Total is at least
// ThumbsUp+ThumbsDown+Code.
type PageFeedback struct {
	Path                              string
	ThumbsUp, ThumbsDown, Code, Total int64
}

// SearchTerm is one row of searches.
type SearchTerm struct {
	Query string
	Hits  int64
	// Clicks is the number of searches for the term followed by a click.
	Clicks int64
	// CTR is Clicks/Hits, exactly as the endpoint sends it.
	CTR float64
	// TopClickedPage is "" when the endpoint sends null (no clicks, or no
	// page recorded).
	TopClickedPage string
	// LastSearchedAt is when the term was last searched in the range.
	LastSearchedAt time.Time
}

// ConversationKey classifies conversation turns as a client should count
// them: an absent responseType is "answer" (the API's documented default)
// and a null resolutionStatus is "unknown".
type ConversationKey struct{ ResponseType, Resolution string }

// Source is one source an assistant answer cites.
type Source struct{ Title, URL string }

// Turn is one assistant conversation turn.
type Turn struct {
	// ID is a ULID; AddTurn makes one from Time when it is "".
	ID   string
	Time time.Time
	// ResponseType is sent as it is; "" leaves the field out (meaning
	// "answer").
	ResponseType string
	// Resolution is the resolutionStatus; "" sends null.
	Resolution string
	// QueryCategory and PageURL are sent as null when "".
	QueryCategory string
	PageURL       string
	Query         string
	Response      string
	Sources       []Source
}

// ext returns the dataset's extras, creating them. The caller holds d.mu.
func (d *Dataset) ext() *extras {
	if d.x == nil {
		d.x = &extras{
			views:    make(map[int32]*dayColumns),
			callers:  make(map[int32]CallerStats),
			feedback: make(map[int32]map[int32]feedbackCount),
			searches: make(map[int32]map[string]searchCount),
			topPage:  make(map[string]string),
			turnIDs:  make(map[string]bool),
			sorted:   true,
		}
	}
	return d.x
}

// checkCounts panics when a count is negative or above math.MaxInt32, or
// when total is below the sum of the parts: those are bugs in the test.
func checkCounts(what string, total int64, parts ...int64) {
	sum := int64(0)
	for _, v := range append(parts, total) {
		if v < 0 || v > math.MaxInt32 {
			panic(fmt.Sprintf("mintlifytest: %s: count %d out of range [0, %d]", what, v, math.MaxInt32))
		}
	}
	for _, v := range parts {
		sum += v
	}
	if total < sum {
		panic(fmt.Sprintf("mintlifytest: %s: total %d below the sum of its parts %d", what, total, sum))
	}
}

// pathIndex returns the number of path, adding it. The caller holds d.mu.
func (d *Dataset) pathIndex(path string) int32 {
	i, ok := d.index[path]
	if !ok {
		i = int32(len(d.paths))
		d.index[path] = i
		d.paths = append(d.paths, path)
	}
	return i
}

// SetViews records the page view events of one path on one day, replacing
// any earlier value. Views are events: total counts every view, human and
// ai views among them, so total >= human+ai (the rest is traffic of neither
// kind). It panics on a negative count, one above math.MaxInt32, or a total
// below human+ai.
func (d *Dataset) SetViews(day time.Time, path string, human, ai, total int64) {
	checkCounts(fmt.Sprintf("Dataset.SetViews(%q)", path), total, human, ai)
	dn := dayNumber(day)
	d.mu.Lock()
	defer d.mu.Unlock()
	i := d.pathIndex(path)
	x := d.ext()
	c := x.views[dn]
	if c == nil {
		c = &dayColumns{}
		x.views[dn] = c
	}
	if int(i) >= len(c.human) {
		n := max(int(i)+1, len(d.paths))
		c.human, c.ai, c.total = grow(c.human, n), grow(c.ai, n), grow(c.total, n)
	}
	c.human[i], c.ai[i], c.total[i] = int32(human), int32(ai), int32(total)
	d.version++
}

// SetCallerStats records the assistant queries of one day by caller,
// replacing any earlier value. It panics on a negative count or a total
// below web+api+other.
func (d *Dataset) SetCallerStats(day time.Time, web, api, other, total int64) {
	checkCounts("Dataset.SetCallerStats", total, web, api, other)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ext().callers[dayNumber(day)] = CallerStats{Web: web, API: api, Other: other, Total: total}
	d.version++
}

// SetFeedback records the feedback entries of one path on one day,
// replacing any earlier value. It panics on a negative count or a total
// below thumbsUp+thumbsDown+code.
func (d *Dataset) SetFeedback(day time.Time, path string, thumbsUp, thumbsDown, code, total int64) {
	checkCounts(fmt.Sprintf("Dataset.SetFeedback(%q)", path), total, thumbsUp, thumbsDown, code)
	dn := dayNumber(day)
	d.mu.Lock()
	defer d.mu.Unlock()
	i := d.pathIndex(path)
	x := d.ext()
	m := x.feedback[dn]
	if m == nil {
		m = make(map[int32]feedbackCount)
		x.feedback[dn] = m
	}
	m[i] = feedbackCount{thumbsUp, thumbsDown, code, total}
	d.version++
}

// SetSearch records the searches for term on one day (hits) and how many of
// them were followed by a click, replacing any earlier value.
// topClickedPage, when not "", becomes the term's top clicked page. It
// panics on an empty term, a negative count or more clicks than hits.
func (d *Dataset) SetSearch(day time.Time, term string, hits, clicks int64, topClickedPage string) {
	if term == "" {
		panic("mintlifytest: Dataset.SetSearch: empty term")
	}
	checkCounts(fmt.Sprintf("Dataset.SetSearch(%q)", term), hits, clicks)
	dn := dayNumber(day)
	d.mu.Lock()
	defer d.mu.Unlock()
	x := d.ext()
	m := x.searches[dn]
	if m == nil {
		m = make(map[string]searchCount)
		x.searches[dn] = m
	}
	m[term] = searchCount{hits, clicks}
	if topClickedPage != "" {
		x.topPage[term] = topClickedPage
	}
	d.version++
}

// AddTurn adds one assistant conversation turn. A turn without an ID gets
// a ULID made from its Time; it panics when an ID repeats or is not a ULID.
func (d *Dataset) AddTurn(t Turn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x := d.ext()
	if t.ID == "" {
		x.turnSeq++
		t.ID = makeULID(t.Time, x.turnSeq)
	}
	t.ID = strings.ToUpper(t.ID)
	if !validULID(t.ID) || x.turnIDs[t.ID] {
		panic(fmt.Sprintf("mintlifytest: Dataset.AddTurn: id %q repeats or is not a ULID", t.ID))
	}
	t.Sources = slices.Clone(t.Sources)
	x.turnIDs[t.ID] = true
	x.turns = append(x.turns, t)
	x.sorted = false
	d.version++
}

// viewSums adds up the views of every path over the days in [from, to).
func (d *Dataset) viewSums(from, to int32) (paths []string, h, a, t []int64) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	n := len(d.paths)
	var views map[int32]*dayColumns
	if d.x != nil {
		views = d.x.views
	}
	h, a, t = sumDays(views, n, from, to)
	return d.paths[:n:n], h, a, t
}

// callerStats adds up the caller stats over the days in [from, to).
func (d *Dataset) callerStats(from, to int32) CallerStats {
	var s CallerStats
	if d == nil {
		return s
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.x == nil {
		return s
	}
	for dn, c := range d.x.callers {
		if dn >= from && dn < to {
			s.Web += c.Web
			s.API += c.API
			s.Other += c.Other
			s.Total += c.Total
		}
	}
	return s
}

// feedbackRows adds up feedback per page over [from, to) and returns the
// pages with any feedback, by total descending, then path ascending.
func (d *Dataset) feedbackRows(from, to int32) []PageFeedback {
	if d == nil {
		return nil
	}
	d.mu.RLock()
	sums := make(map[int32]feedbackCount)
	if d.x != nil {
		for dn, m := range d.x.feedback {
			if dn < from || dn >= to {
				continue
			}
			for i, c := range m {
				s := sums[i]
				s.up, s.down, s.code, s.total = s.up+c.up, s.down+c.down, s.code+c.code, s.total+c.total
				sums[i] = s
			}
		}
	}
	rows := make([]PageFeedback, 0, len(sums))
	for i, s := range sums {
		if s.total > 0 {
			rows = append(rows, PageFeedback{Path: d.paths[i], ThumbsUp: s.up, ThumbsDown: s.down, Code: s.code, Total: s.total})
		}
	}
	d.mu.RUnlock()
	slices.SortFunc(rows, func(x, y PageFeedback) int {
		if x.Total != y.Total {
			return cmpDesc(x.Total, y.Total)
		}
		return strings.Compare(x.Path, y.Path)
	})
	return rows
}

// cmpDesc orders larger values first.
func cmpDesc(x, y int64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}

// searchRows adds up searches per term over [from, to) and returns the
// terms with hits, by hits descending then term ascending, and the number
// of search events.
func (d *Dataset) searchRows(from, to int32) (terms []SearchTerm, total int64) {
	if d == nil {
		return nil, 0
	}
	d.mu.RLock()
	type acc struct {
		searchCount
		last int32
	}
	sums := make(map[string]acc)
	if d.x != nil {
		for dn, m := range d.x.searches {
			if dn < from || dn >= to {
				continue
			}
			for term, c := range m {
				s := sums[term]
				s.hits += c.hits
				s.clicks += c.clicks
				if c.hits > 0 && (s.last == 0 || dn > s.last) {
					s.last = dn
				}
				sums[term] = s
			}
		}
	}
	for term, s := range sums {
		if s.hits == 0 {
			continue
		}
		total += s.hits
		st := SearchTerm{Query: term, Hits: s.hits, Clicks: s.clicks, CTR: float64(s.clicks) / float64(s.hits)}
		if s.clicks > 0 {
			st.TopClickedPage = d.x.topPage[term]
		}
		st.LastSearchedAt = dayTime(s.last).Add(time.Duration(termMinute(term)) * time.Minute)
		terms = append(terms, st)
	}
	d.mu.RUnlock()
	slices.SortFunc(terms, func(x, y SearchTerm) int {
		if x.Hits != y.Hits {
			return cmpDesc(x.Hits, y.Hits)
		}
		return strings.Compare(x.Query, y.Query)
	})
	return terms, total
}

// termMinute is a stable minute of the day for a term's last search.
func termMinute(term string) int {
	h := uint32(2166136261)
	for i := 0; i < len(term); i++ {
		h = (h ^ uint32(term[i])) * 16777619
	}
	return int(h % (24 * 60))
}

// turnsIn returns the turns whose UTC day is in [from, to), newest first
// (by ID, descending). The slice is shared: do not change it.
func (d *Dataset) turnsIn(from, to int32) []Turn {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.x == nil {
		return nil
	}
	if !d.x.sorted {
		slices.SortFunc(d.x.turns, func(a, b Turn) int { return strings.Compare(b.ID, a.ID) })
		d.x.sorted = true
	}
	var out []Turn
	for _, t := range d.x.turns {
		if dn := dayNumber(t.Time); dn >= from && dn < to {
			out = append(out, t)
		}
	}
	return out
}

// crockford is the ULID alphabet.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// makeULID returns a ULID whose time part is t (milliseconds) and whose
// random part is derived from seq, so that it is deterministic.
func makeULID(t time.Time, seq uint64) string {
	ms := uint64(max(t.UnixMilli(), 0)) & (1<<48 - 1)
	// 80 "random" bits: a mix of seq and the time.
	r := seq*0x9e3779b97f4a7c15 ^ ms*0xbf58476d1ce4e5b9
	hi := uint16(seq >> 3 & 0xffff)
	var b [26]byte
	// 48-bit time in 10 characters (the first holds 3 bits).
	for i := 9; i >= 0; i-- {
		b[i] = crockford[ms&31]
		ms >>= 5
	}
	// 80 bits: 16 from hi and 64 from r, 16 characters.
	for i := 25; i >= 10; i-- {
		b[i] = crockford[r&31]
		r = r>>5 | uint64(hi&31)<<59
		hi >>= 5
	}
	return string(b[:])
}

// validULID reports whether s is 26 characters of the (upper case) ULID
// alphabet that fit in 128 bits.
func validULID(s string) bool {
	if len(s) != 26 || s[0] > '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(crockford, s[i]) < 0 {
			return false
		}
	}
	return true
}
