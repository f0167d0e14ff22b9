package collector

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// UnitResult is one unit's result, for RestoredEngine.
type UnitResult struct {
	Unit   engine.Unit
	Result *engine.Result
}

// RestoredEngine returns an engine, never started, serving results of
// src's units as if restored from a cache file at now: nothing is fetched.
func RestoredEngine(tb testing.TB, src engine.Source, now time.Time, results ...UnitResult) *engine.Engine {
	tb.Helper()
	var projects []string
	var windows []engine.Window
	st := &engine.State{}
	for _, r := range results {
		if !slices.Contains(projects, r.Unit.Project) {
			projects = append(projects, r.Unit.Project)
		}
		if !slices.Contains(windows, r.Unit.Window) {
			windows = append(windows, r.Unit.Window)
		}
		rng := r.Unit.Window.Range(now)
		d := engine.UnitData{Source: src.Name(), Project: r.Unit.Project, Window: r.Unit.Window.String(),
			DateFrom: rng.From.String(), DateTo: rng.To.String(), Completed: now, Cost: r.Result.Cost,
			Families: map[string][]engine.Sample{}}
		for i, f := range src.Families() {
			if i < len(r.Result.Samples) && len(r.Result.Samples[i]) > 0 {
				d.Families[f.Name] = r.Result.Samples[i]
			}
		}
		st.Units = append(st.Units, d)
	}
	e, err := engine.New(engine.Config{
		Sources: []engine.Source{src}, Projects: projects, Windows: windows, MinInterval: 15 * time.Minute,
		Budget: budget.New(90, func() time.Time { return now }), Status: health.NewStatus(),
		Now: func() time.Time { return now }, Restore: st,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

// StaticVisitors answers every visitors or views page from res, never
// reaching the network.
type StaticVisitors struct{ Res *client.PathsResult }

// PathsPage answers res's totals and the rows at the query's offset.
func (s StaticVisitors) PathsPage(_ context.Context, _ client.Endpoint, _ string, q client.PathsQuery) (*client.PathsPage, error) {
	limit := q.Limit
	if limit == 0 {
		limit = client.MaxPageSize
	}
	from := min(q.Offset, len(s.Res.Rows))
	to := min(from+limit, len(s.Res.Rows))
	return &client.PathsPage{Totals: s.Res.Totals, Rows: slices.Clone(s.Res.Rows[from:to]), HasMore: to < len(s.Res.Rows)}, nil
}
