package stream

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Sample is one counter's cumulative value at one step of a History.
type Sample struct {
	// Name is the metric name (ending in _total); Labels and Values its
	// label names and values, project first.
	Name           string
	Labels, Values []string
	Value          float64
	// Gauge marks a visitor gauge (mintlify_stream_visitors), whose
	// sample is stamped At, the last second of the UTC day it counts,
	// not the step.
	Gauge bool
	At    time.Time
}

// VisitorsFamily returns the name, help text and label names of the
// visitor gauge a History emits once a day.
func VisitorsFamily() (name, help string, labels []string) {
	return "mintlify_stream_visitors", visitorsHelp, []string{"project", "window"}
}

// HistoryStats is what a History read.
type HistoryStats struct {
	Objects, Lines, Events, Duplicates, OutOfRange int64
	Refused                                        map[string]int64 // lines by reason
	Skipped                                        map[string]int64 // objects by reason
}

// HistoryFamilies returns the names, help texts and label names of the
// counter families a History emits, in exposition order.
func HistoryFamilies() (names, helps []string, labels [][]string) {
	for f := fEvents; f <= fMenu; f++ {
		names = append(names, famInfo[f].name)
		helps = append(helps, famInfo[f].help)
		labels = append(labels, famInfo[f].labels)
	}
	return names, helps, labels
}

// History reads every object of cfg.Store under cfg.Prefix (whatever
// their keys: only the events' created_at decides), keeps the events
// created in [from, to), and counts them in created_at order with the
// live Source's code (the same event map, traffic rules, dedup by
// event_id and series caps). At every multiple of step after from up to
// to, emit receives the cumulative value of every per-project counter
// series seen so far, stamped with that step's time. The events of the
// range are held in memory (about 160 bytes each, with their label
// texts) while they are sorted; an event_id is remembered for an hour of
// event time after it was counted (a duplicate carries its original's
// created_at, so it sorts next to it). Poll settings (interval,
// look-back) do not apply.
func History(ctx context.Context, cfg Config, from, to time.Time, step time.Duration, emit func(at time.Time, samples []Sample) error) (HistoryStats, error) {
	hs := HistoryStats{Refused: map[string]int64{}, Skipped: map[string]int64{}}
	if step <= 0 {
		return hs, errors.New("the step of a stream history must be positive")
	}
	if !from.Before(to) {
		return hs, fmt.Errorf("the range %s..%s is empty", from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	}
	s, err := New(cfg)
	if err != nil {
		return hs, err
	}
	var recs []record
	after := ""
	for {
		page, err := s.cfg.Store.List(ctx, s.cfg.Prefix, after, listPage)
		if err != nil {
			return hs, historyErr(s, err)
		}
		if len(page) > 0 && page[len(page)-1].Key <= after || len(page) > listPage {
			return hs, fmt.Errorf("the store listed keys out of order or too many (%d after %q)", len(page), sanitize(after, 64))
		}
		for _, o := range page {
			res, skip, err := s.readHistoryObject(ctx, o.Key)
			if err != nil {
				return hs, historyErr(s, err)
			}
			if skip != "" {
				hs.Skipped[skip]++
				continue
			}
			hs.Objects++
			hs.Lines += res.lines
			for r, n := range res.refused {
				hs.Refused[r] += n
			}
			for _, r := range res.recs {
				if r.created.IsZero() || r.created.Before(from) || !r.created.Before(to) {
					hs.OutOfRange++
					continue
				}
				recs = append(recs, r)
			}
		}
		if len(page) < listPage {
			break
		}
		after = page[len(page)-1].Key
	}
	slices.SortStableFunc(recs, func(a, b record) int { return a.created.Compare(b.created) })

	st := s.st
	i := 0
	for at := from.Add(step); ; at = at.Add(step) {
		if at.After(to) {
			at = to
		}
		j := i
		for j < len(recs) && recs[j].created.Before(at) {
			j++
		}
		if at.Unix()%3600 == 0 { // dedup ids are kept an hour of event time, as the live look-back's default
			for id, t := range st.ids {
				if t < at.Unix()-3600 {
					delete(st.ids, id)
				}
			}
		}
		if j > i {
			before := st.counters[series{f: fDups}]
			hs.Events += s.apply(st, &objectResult{recs: recs[i:j]}, at)
			hs.Duplicates += int64(st.counters[series{f: fDups}] - before)
			i = j
		}
		samples := historySamples(st)
		if at.Unix()%86400 == 0 && at.After(from) {
			samples = append(samples, dayVisitors(st, from, at)...)
		}
		if err := emit(at, samples); err != nil {
			return hs, err
		}
		if !at.Before(to) {
			return hs, nil
		}
		if err := ctx.Err(); err != nil {
			return hs, err
		}
	}
}

// readHistoryObject reads one object whole; a vanished or corrupt object
// is skipped (with its reason), a store error that is not about the
// object ends the history.
func (s *Source) readHistoryObject(ctx context.Context, key string) (*objectResult, string, error) {
	body, _, err := s.cfg.Store.Open(ctx, key)
	if err == nil {
		var res *objectResult
		res, err = s.parser.readObject(body)
		body.Close()
		if err == nil {
			return res, "", nil
		}
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, skipNotFound, nil
	case errors.Is(err, errBadGzip):
		return nil, skipBadGzip, nil
	}
	return nil, "", fmt.Errorf("reading object %s: %w", sanitize(key, maxLabelLen), err)
}

// historySamples are the per-project counters of st, sorted.
func historySamples(st *state) []Sample {
	out := make([]Sample, 0, len(st.counters))
	for k, v := range st.counters {
		if k.f > fMenu { // fEvents is the first family
			continue
		}
		labels := famInfo[k.f].labels
		out = append(out, Sample{Name: famInfo[k.f].name, Labels: labels,
			Values: []string{k.a, k.b, k.c}[:len(labels)], Value: float64(v)})
	}
	slices.SortFunc(out, func(a, b Sample) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return slices.Compare(a.Values, b.Values)
	})
	return out
}

// historyErr is describeErr without the retry a poll has: a history
// stops at its first store error.
func historyErr(s *Source, err error) error {
	for _, e := range []error{ErrAccessDenied, ErrNoBucket, ErrWrongRegion, ErrThrottled, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, e) {
			return s.describeErr(err)
		}
	}
	return fmt.Errorf("stream: reading --stream.s3.bucket failed: %s", oneLine(err))
}

// dayVisitors are the visitor gauges of the UTC day that ends at end, as
// the live Source shows them at its last second: 1d always, 7d and 30d
// only when the range covers the whole window (events before from are
// not counted, so a shorter window would be too low).
func dayVisitors(st *state, from, end time.Time) []Sample {
	day := dayOf(end) - 1
	covered := int32(end.Sub(from) / (24 * time.Hour))
	name, _, labels := VisitorsFamily()
	var out []Sample
	for _, pn := range slices.Sorted(maps.Keys(st.projects)) {
		est := estimate(st.projects[pn].site, day)
		for _, w := range windows {
			if w.days > covered {
				continue
			}
			out = append(out, Sample{Name: name, Labels: labels, Values: []string{pn, w.name}, Value: float64(est[w.name]),
				Gauge: true, At: end.Add(-time.Second)})
		}
	}
	return out
}
