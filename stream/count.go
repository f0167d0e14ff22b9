package stream

import (
	"sort"
	"time"

	"github.com/axiomhq/hyperloglog"
)

// fam numbers the counter families.
type fam uint8

const (
	fEvents fam = iota
	fPageViews
	fReferrals
	fSearches
	fClicks
	fTerms
	fFeedback
	fConvs
	fAsstErrs
	fMCP
	fMenu
	fObjects
	fLines
	fRefused
	fDups
	fSkipped
	numFams
)

// series is one counter's identity: a family and up to three label values
// (project first for the per-project families).
type series struct {
	f       fam
	a, b, c string
}

// Bounds of the per-project label sets beyond --stream.max-paths and
// --stream.top-referrers.
const (
	maxEventTypes    = 200 // distinct eventTypes per project; later ones count as event="other"
	maxLabelValues   = 200 // tools, actions, feedback kinds per project; later ones are "other"
	maxTerms         = 100 // search terms per project (with --stream.search-terms)
	maxProjects      = 100 // unmapped subdomains kept as their own project; later ones are project="other"
	pageVisitorPaths = 100 // paths per project with visitor sketches (the top by views)
	sketchDays       = 30  // UTC days of sketches kept: the longest window
	other            = "other"
)

// project is one project's label sets and sketches.
type project struct {
	// admitted label values: a value gets its own series the first time
	// it is seen while its set has room, and keeps it for good; the rest
	// count under "other" (so no count ever moves between series).
	paths, refs, terms, events, labels map[string]bool
	views                              map[string]uint64 // page views by admitted path
	site                               map[int32]*hyperloglog.Sketch
	pages                              map[string]map[int32]*hyperloglog.Sketch // tracked paths only
}

func newProject() *project {
	return &project{
		paths: map[string]bool{}, refs: map[string]bool{}, terms: map[string]bool{},
		events: map[string]bool{}, labels: map[string]bool{}, views: map[string]uint64{},
		site: map[int32]*hyperloglog.Sketch{}, pages: map[string]map[int32]*hyperloglog.Sketch{},
	}
}

func admit(set map[string]bool, v string, max int) string {
	if set[v] {
		return v
	}
	if len(set) < max {
		set[v] = true
		return v
	}
	return other
}

// state is everything Snapshot keeps; guarded by Source.mu.
type state struct {
	checkpoint string                                  // List starts after this key
	seen       map[string]int64                        // keys read (or skipped) above the checkpoint -> first sight, unix seconds
	attempts   map[string]int                          // failed reads by key
	ids        map[[16]byte]int64                      // event ids -> arrival, unix seconds
	counters   map[series]uint64                       //
	projects   map[string]*project                     // by project label
	unmapped   map[string]bool                         // subdomains seen that --stream.project does not map
	lastObject time.Time                               // newest LastModified read
	newest     time.Time                               // newest created_at counted (not in the future)
	perMinute  map[int64]int64                         // events counted by arrival minute (unix minutes), last 10
	visitors   map[string]map[string]uint64            // project -> window -> estimate
	pageVis    map[string]map[string]map[string]uint64 // project -> path -> window -> estimate
}

func newState() *state {
	return &state{
		seen: map[string]int64{}, attempts: map[string]int{}, ids: map[[16]byte]int64{},
		counters: map[series]uint64{}, projects: map[string]*project{}, unmapped: map[string]bool{},
		perMinute: map[int64]int64{},
		visitors:  map[string]map[string]uint64{}, pageVis: map[string]map[string]map[string]uint64{},
	}
}

func (st *state) project(name string) *project {
	p := st.projects[name]
	if p == nil {
		p = newProject()
		st.projects[name] = p
	}
	return p
}

// projectOf is the project label of a subdomain.
func (s *Source) projectOf(st *state, sub string) string {
	if id, ok := s.cfg.Projects[sub]; ok {
		return id
	}
	if sub == "" {
		sub = unknown
	}
	if !st.unmapped[sub] && len(st.unmapped) < maxProjects {
		st.unmapped[sub] = true
	}
	if st.unmapped[sub] {
		return sub
	}
	return other
}

// apply counts one wholly read object; it returns the number of events
// counted. Called with s.mu held.
func (s *Source) apply(st *state, res *objectResult, now time.Time) int64 {
	st.counters[series{f: fObjects}]++
	st.counters[series{f: fLines}] += uint64(res.lines)
	for reason, n := range res.refused {
		st.counters[series{f: fRefused, a: reason}] += uint64(n)
	}
	arrival := now.Unix()
	today := dayOf(now)
	var counted int64
	for i := range res.recs {
		r := &res.recs[i]
		if _, dup := st.ids[r.id]; dup {
			st.counters[series{f: fDups}]++
			continue
		}
		st.ids[r.id] = arrival
		counted++
		pn := s.projectOf(st, r.sub)
		p := st.project(pn)
		st.counters[series{f: fEvents, a: pn, b: admit(p.events, r.event, maxEventTypes)}]++
		if !r.created.IsZero() && !r.created.After(now) && r.created.After(st.newest) {
			st.newest = r.created
		}
		day := today
		if !r.created.IsZero() && !r.created.After(now) {
			day = dayOf(r.created)
		}
		keep := day > today-sketchDays
		if r.hasVisit && keep {
			sketchOf(p.site, day, siteprecision).InsertHash(r.visitor)
		}
		m := r.m
		if m == nil {
			continue
		}
		switch m.Family {
		case famPageViews:
			path := admit(p.paths, r.path, s.cfg.MaxPaths)
			st.counters[series{f: fPageViews, a: pn, b: path, c: r.traffic}]++
			st.counters[series{f: fReferrals, a: pn, b: admit(p.refs, r.ref, s.cfg.TopReferrers)}]++
			if path != other {
				p.views[path]++
				if r.hasVisit && keep {
					days := p.pages[path]
					if days == nil && len(p.pages) < pageVisitorPaths {
						days = map[int32]*hyperloglog.Sketch{}
						p.pages[path] = days
					}
					if days != nil {
						sketchOf(days, day, pageprecision).InsertHash(r.visitor)
					}
				}
			}
		case famSearches:
			st.counters[series{f: fSearches, a: pn}]++
			if s.cfg.SearchTerms && r.label != "" {
				st.counters[series{f: fTerms, a: pn, b: admit(p.terms, r.label, maxTerms)}]++
			}
		case famClicks:
			st.counters[series{f: fClicks, a: pn}]++
		case famFeedback:
			path := r.path
			if !p.paths[path] {
				path = other
			}
			st.counters[series{f: fFeedback, a: pn, b: path, c: admit(p.labels, r.label, maxLabelValues)}]++
		case famConvs:
			st.counters[series{f: fConvs, a: pn}]++
		case famAsstErrs:
			st.counters[series{f: fAsstErrs, a: pn}]++
		case famMCP:
			st.counters[series{f: fMCP, a: pn, b: admit(p.labels, r.label, maxLabelValues)}]++
		case famMenu:
			st.counters[series{f: fMenu, a: pn, b: admit(p.labels, r.label, maxLabelValues)}]++
		}
	}
	if counted > 0 {
		st.perMinute[now.Unix()/60] += counted
	}
	return counted
}

func dayOf(t time.Time) int32 { return int32(t.Unix() / 86400) }

// rerank gives visitor sketches to the top paths by views: a path that
// overtakes a tracked one takes its place (its sketches start then; the
// dropped path's sketches and series go).
func (p *project) rerank() {
	if len(p.views) <= len(p.pages) {
		return
	}
	paths := make([]string, 0, len(p.views))
	for path := range p.views {
		paths = append(paths, path)
	}
	sort.Slice(paths, func(i, j int) bool {
		vi, vj := p.views[paths[i]], p.views[paths[j]]
		if vi != vj {
			return vi > vj
		}
		_, ti := p.pages[paths[i]]
		_, tj := p.pages[paths[j]]
		if ti != tj {
			return ti
		}
		return paths[i] < paths[j]
	})
	if len(paths) > pageVisitorPaths {
		paths = paths[:pageVisitorPaths]
	}
	top := map[string]bool{}
	for _, path := range paths {
		top[path] = true
		if p.pages[path] == nil {
			p.pages[path] = map[int32]*hyperloglog.Sketch{}
		}
	}
	for path := range p.pages {
		if !top[path] {
			delete(p.pages, path)
		}
	}
}

// expire forgets what is older than the windows: ids older than the
// look-back plus a margin, sketches older than 30 days, per-minute counts
// older than 10 minutes; then it estimates the visitor windows.
func (s *Source) expire(st *state, now time.Time) {
	idHorizon := now.Add(-s.idKeep()).Unix()
	for id, t := range st.ids {
		if t < idHorizon {
			delete(st.ids, id)
		}
	}
	if over := len(st.ids) - maxIDs; over > 0 {
		dropOldestIDs(st.ids, over)
	}
	minute := now.Unix() / 60
	for m := range st.perMinute {
		if m <= minute-10 {
			delete(st.perMinute, m)
		}
	}
	today := dayOf(now)
	for name, p := range st.projects {
		p.rerank()
		for d := range p.site {
			if d <= today-sketchDays {
				delete(p.site, d)
			}
		}
		for _, days := range p.pages {
			for d := range days {
				if d <= today-sketchDays {
					delete(days, d)
				}
			}
		}
		st.visitors[name] = estimate(p.site, today)
		pv := map[string]map[string]uint64{}
		for path, days := range p.pages {
			pv[path] = estimate(days, today)
		}
		st.pageVis[name] = pv
	}
}

// maxIDs bounds the dedup set whatever the look-back: 4 million ids (about
// 160 MB at most). Past it the oldest arrivals are forgotten first.
const maxIDs = 4_000_000

func dropOldestIDs(ids map[[16]byte]int64, n int) {
	ts := make([]int64, 0, len(ids))
	for _, t := range ids {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	cut := ts[n-1]
	for id, t := range ids {
		if t <= cut {
			delete(ids, id)
		}
	}
}

// idKeep is how long an event id is remembered after it arrived: the
// look-back (an object read again would be within it) plus two polls.
func (s *Source) idKeep() time.Duration { return s.cfg.LookBack + 2*s.cfg.PollInterval }
