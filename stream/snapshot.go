package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/axiomhq/hyperloglog"
)

// snapshotVersion is the format Snapshot writes and Restore reads.
const snapshotVersion = 1

// Bounds Restore enforces on a snapshot, as if it came from a hostile disk.
const (
	maxSnapshotBytes = 512 << 20
	maxSeries        = 1_000_000
	maxSeenKeys      = 1_000_000
	maxKeyLen        = 1024
	maxSketchBytes   = 1 << 17
	maxSketches      = 100_000
)

// snapshot is the JSON form of the state. It holds no personal data:
// event ids are hashed or bare UUID bytes, visitors only as sketches.
type snapshot struct {
	Version    int          `json:"version"`
	Checkpoint string       `json:"checkpoint"`
	Seen       []snapSeen   `json:"seen,omitempty"`
	Attempts   []snapSeen   `json:"attempts,omitempty"`
	IDs        []snapIDs    `json:"ids,omitempty"`
	Counters   []snapSeries `json:"counters,omitempty"`
	Unmapped   []string     `json:"unmapped,omitempty"`
	Sketches   []snapSketch `json:"sketches,omitempty"`
	LastObject *time.Time   `json:"last_object,omitempty"`
	Newest     *time.Time   `json:"newest_event,omitempty"`
}

type snapSeen struct {
	Key string `json:"k"`
	T   int64  `json:"t"` // first sight (unix seconds), or failed reads for attempts
}

type snapIDs struct {
	T   int64  `json:"t"`   // arrival, unix seconds
	IDs []byte `json:"ids"` // 16 bytes each (base64 in JSON)
}

type snapSeries struct {
	Metric string   `json:"m"`
	Labels []string `json:"l,omitempty"`
	Value  uint64   `json:"v"`
}

type snapSketch struct {
	Project string `json:"p"`
	Path    string `json:"path,omitempty"` // "" = site-wide
	Day     int32  `json:"d"`              // UTC day, days since 1970-01-01
	Sketch  []byte `json:"s"`
}

// Snapshot returns the source's state (checkpoint, recent keys and event
// ids, counters, visitor sketches) as JSON, taken under one lock.
func (s *Source) Snapshot() (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	out := snapshot{Version: snapshotVersion, Checkpoint: st.checkpoint}
	for k, t := range st.seen {
		out.Seen = append(out.Seen, snapSeen{k, t})
	}
	sort.Slice(out.Seen, func(i, j int) bool { return out.Seen[i].Key < out.Seen[j].Key })
	for k, n := range st.attempts {
		out.Attempts = append(out.Attempts, snapSeen{k, int64(n)})
	}
	sort.Slice(out.Attempts, func(i, j int) bool { return out.Attempts[i].Key < out.Attempts[j].Key })
	byT := map[int64][]byte{}
	for id, t := range st.ids {
		byT[t] = append(byT[t], id[:]...)
	}
	for t, b := range byT {
		out.IDs = append(out.IDs, snapIDs{t, b})
	}
	sort.Slice(out.IDs, func(i, j int) bool { return out.IDs[i].T < out.IDs[j].T })
	for k, v := range st.counters {
		out.Counters = append(out.Counters, snapSeries{famInfo[k.f].name, []string{k.a, k.b, k.c}[:len(famInfo[k.f].labels)], v})
	}
	sort.Slice(out.Counters, func(i, j int) bool {
		a, b := out.Counters[i], out.Counters[j]
		if a.Metric != b.Metric {
			return a.Metric < b.Metric
		}
		for n := range a.Labels {
			if a.Labels[n] != b.Labels[n] {
				return a.Labels[n] < b.Labels[n]
			}
		}
		return false
	})
	for sub := range st.unmapped {
		out.Unmapped = append(out.Unmapped, sub)
	}
	sort.Strings(out.Unmapped)
	addSketches := func(project, path string, days map[int32]*hyperloglog.Sketch) error {
		for d, sk := range days {
			b, err := sk.MarshalBinary()
			if err != nil {
				return fmt.Errorf("stream: snapshot: %v", err)
			}
			out.Sketches = append(out.Sketches, snapSketch{project, path, d, b})
		}
		return nil
	}
	for name, p := range st.projects {
		if err := addSketches(name, "", p.site); err != nil {
			return nil, err
		}
		for path, days := range p.pages {
			if err := addSketches(name, path, days); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(out.Sketches, func(i, j int) bool {
		a, b := out.Sketches[i], out.Sketches[j]
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Day < b.Day
	})
	if !st.lastObject.IsZero() {
		t := st.lastObject.UTC()
		out.LastObject = &t
	}
	if !st.newest.IsZero() {
		t := st.newest.UTC()
		out.Newest = &t
	}
	return json.Marshal(out)
}

// Restore replaces the state with a Snapshot's. It checks everything as if
// the bytes came from a hostile disk (sizes, counts, label values, sketch
// encodings) and refuses the snapshot whole, with one log line and an
// error, at the first fault; the state is then left as it was.
func (s *Source) Restore(b json.RawMessage) error {
	st, err := s.decodeSnapshot(b)
	if err != nil {
		err = fmt.Errorf("stream: the cache file's stream state is refused, counting starts afresh: %v", err)
		_ = s.cfg.Logger.Log("level", "warn", "msg", oneLine(err))
		return err
	}
	s.pollMu.Lock()
	defer s.pollMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(st, s.cfg.Now())
	s.st = st
	s.started = true
	return nil
}

var metricFam = func() map[string]fam {
	m := map[string]fam{}
	for f := range numFams {
		m[famInfo[f].name] = f
	}
	return m
}()

func validKey(k string) bool {
	return k != "" && len(k) <= maxKeyLen && utf8.ValidString(k)
}

func validLabel(v string) bool {
	return v != "" && sanitize(v, maxLabelLen) == v
}

func (s *Source) decodeSnapshot(b []byte) (st *state, err error) {
	defer func() {
		if r := recover(); r != nil { // a sketch decoder that panics on hostile bytes
			st, err = nil, fmt.Errorf("undecodable: %v", r)
		}
	}()
	if len(b) > maxSnapshotBytes {
		return nil, fmt.Errorf("%d bytes, more than %d", len(b), maxSnapshotBytes)
	}
	var snap snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&snap); err != nil {
		return nil, fmt.Errorf("not a stream snapshot: %v", err)
	}
	if snap.Version != snapshotVersion {
		return nil, fmt.Errorf("version %d, want %d", snap.Version, snapshotVersion)
	}
	st = newState()
	if snap.Checkpoint != "" && !validKey(snap.Checkpoint) {
		return nil, fmt.Errorf("invalid checkpoint")
	}
	st.checkpoint = snap.Checkpoint
	if len(snap.Seen)+len(snap.Attempts) > maxSeenKeys {
		return nil, fmt.Errorf("%d keys, more than %d", len(snap.Seen)+len(snap.Attempts), maxSeenKeys)
	}
	for _, k := range snap.Seen {
		if !validKey(k.Key) || k.T < 0 || k.Key <= st.checkpoint {
			return nil, fmt.Errorf("invalid key %q", sanitize(k.Key, 64))
		}
		st.seen[k.Key] = k.T
	}
	for _, k := range snap.Attempts {
		if !validKey(k.Key) || k.T < 1 || k.T >= maxReadAttempts || k.Key <= st.checkpoint {
			return nil, fmt.Errorf("invalid pending key %q", sanitize(k.Key, 64))
		}
		st.attempts[k.Key] = int(k.T)
	}
	for _, g := range snap.IDs {
		if len(g.IDs)%16 != 0 || g.T < 0 {
			return nil, fmt.Errorf("invalid event ids")
		}
		if len(st.ids)+len(g.IDs)/16 > maxIDs {
			return nil, fmt.Errorf("more than %d event ids", maxIDs)
		}
		for i := 0; i < len(g.IDs); i += 16 {
			st.ids[[16]byte(g.IDs[i:i+16])] = g.T
		}
	}
	if len(snap.Counters) > maxSeries {
		return nil, fmt.Errorf("%d series, more than %d", len(snap.Counters), maxSeries)
	}
	for _, c := range snap.Counters {
		f, ok := metricFam[c.Metric]
		if !ok || len(c.Labels) != len(famInfo[f].labels) || c.Value > 1<<53 {
			return nil, fmt.Errorf("invalid counter %q", sanitize(c.Metric, 64))
		}
		k := series{f: f}
		for i, v := range c.Labels {
			if !validLabel(v) {
				return nil, fmt.Errorf("invalid label value in %s", c.Metric)
			}
			*[]*string{&k.a, &k.b, &k.c}[i] = v
		}
		if _, dup := st.counters[k]; dup {
			return nil, fmt.Errorf("%s counted twice for one series", c.Metric)
		}
		st.counters[k] = c.Value
		s.admitRestored(st, k, c.Value)
	}
	if len(snap.Unmapped) > maxProjects {
		return nil, fmt.Errorf("%d unmapped subdomains, more than %d", len(snap.Unmapped), maxProjects)
	}
	for _, sub := range snap.Unmapped {
		if !validLabel(sub) {
			return nil, fmt.Errorf("invalid subdomain")
		}
		st.unmapped[sub] = true
	}
	if len(snap.Sketches) > maxSketches {
		return nil, fmt.Errorf("%d sketches, more than %d", len(snap.Sketches), maxSketches)
	}
	for _, sk := range snap.Sketches {
		if !validLabel(sk.Project) || sk.Path != "" && !validLabel(sk.Path) || len(sk.Sketch) > maxSketchBytes || sk.Day < 0 {
			return nil, fmt.Errorf("invalid sketch")
		}
		precision := uint8(siteprecision)
		if sk.Path != "" {
			precision = pageprecision
		}
		h := new(hyperloglog.Sketch)
		if err := h.UnmarshalBinary(sk.Sketch); err != nil {
			return nil, fmt.Errorf("invalid sketch: %v", err)
		}
		// Merging into an empty sketch of the expected precision checks
		// that it has that precision.
		check, _ := hyperloglog.NewSketch(precision, true)
		if err := check.Merge(h); err != nil {
			return nil, fmt.Errorf("invalid sketch: %v", err)
		}
		p := st.project(sk.Project)
		days := p.site
		if sk.Path != "" {
			if days = p.pages[sk.Path]; days == nil {
				if len(p.pages) >= pageVisitorPaths {
					return nil, fmt.Errorf("more than %d paths with sketches", pageVisitorPaths)
				}
				days = map[int32]*hyperloglog.Sketch{}
				p.pages[sk.Path] = days
			}
		}
		if days[sk.Day] != nil {
			return nil, fmt.Errorf("two sketches for one day")
		}
		days[sk.Day] = h
	}
	if snap.LastObject != nil {
		st.lastObject = *snap.LastObject
	}
	if snap.Newest != nil {
		st.newest = *snap.Newest
	}
	return st, nil
}

// admitRestored rebuilds the admitted label sets from a restored counter.
func (s *Source) admitRestored(st *state, k series, v uint64) {
	var p *project
	switch k.f {
	case fObjects, fLines, fRefused, fDups, fSkipped:
		return
	}
	p = st.project(k.a)
	note := func(set map[string]bool, val string) {
		if val != other {
			set[val] = true
		}
	}
	switch k.f {
	case fEvents:
		note(p.events, k.b)
	case fPageViews:
		note(p.paths, k.b)
		if k.b != other {
			p.views[k.b] += v
		}
	case fReferrals:
		note(p.refs, k.b)
	case fTerms:
		note(p.terms, k.b)
	case fFeedback:
		note(p.labels, k.c)
	case fMCP, fMenu:
		note(p.labels, k.b)
	}
}
