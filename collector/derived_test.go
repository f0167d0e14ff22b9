package collector

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// derivedEnv is an engine with derived windows over every additive source
// against the fake, on a fixed clock.
type derivedEnv struct {
	srv     *mintlifytest.Server
	e       *engine.Engine
	l       *derived.Layer
	sources []engine.Source
}

func newDerivedEnv(t *testing.T, restore *engine.State, days []derived.Day, opts ...mintlifytest.Option) *derivedEnv {
	t.Helper()
	clk := mintlifytest.NewClock(day0)
	clock := clk.Now
	data := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 21, Paths: 300, Days: 40, End: day0, SearchTerms: 20, TurnsPerDay: 30})
	srv := mintlifytest.NewServer(append([]mintlifytest.Option{mintlifytest.WithClock(clock), mintlifytest.WithProject("docs", data)}, opts...)...)
	t.Cleanup(srv.Close)
	b := budget.New(100_000, clock)
	c := apitest.Client(t, srv, client.Config{Now: clock, Hooks: client.Hooks{Allow: b.Allow}})
	srcs, err := Build([]string{"views", "assistant", "searches", "conversations"}, c, Options{PageSize: 250, ConversationsMaxPages: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ws []engine.Window
	for _, w := range []string{"1d", "7d", "30d"} {
		ws = append(ws, windowOf(t, w))
	}
	l := derived.New(derived.Config{Days: days})
	e, err := engine.New(engine.Config{Sources: srcs, Projects: []string{"docs"}, Windows: ws, MinInterval: 15 * time.Minute,
		Budget: b, Status: health.NewStatus(), Now: clock, WaitUntil: clk.WaitUntil, Layer: l, Restore: restore})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.Start()
	// Filling the day store takes seconds: the bound is against a hang.
	if !clk.Settle(1, 3*time.Minute) {
		t.Fatalf("the engine did not settle: %+v", e.States())
	}
	return &derivedEnv{srv: srv, e: e, l: l, sources: srcs}
}

// TestDerivedWindowsEqualDirectReads: with every closed day in the store,
// 7d and 30d of views (site and per page), assistant queries, searches and
// conversation turns are derived, and equal exactly what a direct read of
// the window answers.
func TestDerivedWindowsEqualDirectReads(t *testing.T) {
	env := newDerivedEnv(t, nil, nil)
	derived := 0
	for _, st := range env.e.States() {
		if st.Window.Days == 1 {
			continue
		}
		if !strings.HasPrefix(st.Summary, "derived") {
			t.Errorf("%s is not derived: %q (%s)", st.Unit, st.Summary, st.LastError)
			continue
		}
		derived++
	}
	if derived != 10 {
		t.Fatalf("%d derived windows, want 10 (4 sources × 7d, 30d, and views' site totals of each)", derived)
	}
	got := map[string]float64{}
	for _, u := range env.e.State().Units {
		// A window's site totals (7d:site) are compared with the same
		// direct read as its pages.
		w := strings.TrimSuffix(u.Window, ":site")
		if w == "1d" {
			continue
		}
		for fam, ss := range u.Families {
			for _, s := range ss {
				got[fmt.Sprintf("%s/%s/%s/%q", w, fam, u.Source, s.Labels)] = s.Value
			}
		}
	}
	// The direct reads, source by source, of the same windows.
	n := 0
	for _, src := range env.sources {
		for _, w := range []string{"7d", "30d"} {
			win := windowOf(t, w)
			res, err := src.Fetch(context.Background(), engine.Unit{Source: src.Name(), Project: "docs", Window: win}, win.Range(day0), 0)
			if err != nil {
				t.Fatal(err)
			}
			for fi, ss := range res.Samples {
				for _, s := range ss {
					k := fmt.Sprintf("%s/%s/%s/%q", w, src.Families()[fi].Name, src.Name(), s.Labels)
					if g, ok := got[k]; !ok || g != s.Value {
						t.Errorf("%s: derived %v (present %v), direct %v", k, g, ok, s.Value)
					}
					delete(got, k)
					n++
				}
			}
		}
	}
	for k, v := range got {
		t.Errorf("%s = %v derived, absent from the direct read", k, v)
	}
	if n < 1000 {
		t.Errorf("only %d series compared", n)
	}
}

// closedDayReads counts the fake's answers to one-day ranges before today:
// the day store's reads.
func closedDayReads(srv *mintlifytest.Server) int {
	n := 0
	today := day0.Truncate(24 * time.Hour)
	for _, r := range srv.Requests() {
		from, err1 := time.Parse(time.DateOnly, r.Query.Get("dateFrom"))
		to, err2 := time.Parse(time.DateOnly, r.Query.Get("dateTo"))
		if err1 == nil && err2 == nil && to.Sub(from) == 24*time.Hour && !to.After(today) {
			n++
		}
	}
	return n
}

// TestDerivedWindowsSurviveARestart: a restart with the cache file's state
// keeps the day store, derives its windows at once and reads no closed day
// again.
func TestDerivedWindowsSurviveARestart(t *testing.T) {
	first := newDerivedEnv(t, nil, nil)
	if n := closedDayReads(first.srv); n < 29*4 {
		t.Fatalf("the first run read %d closed days, want at least 29 for each of 4 sources", n)
	}
	st, days := first.e.State(), first.l.Days()
	if len(days) < 29*4 {
		t.Fatalf("the state holds %d days, want at least 116", len(days))
	}
	first.e.Close()
	second := newDerivedEnv(t, &st, days)
	if n := closedDayReads(second.srv); n != 0 {
		t.Errorf("the restart read %d closed days again", n)
	}
	for _, s := range second.e.States() {
		if s.Window.Days > 1 && !strings.HasPrefix(s.Summary, "derived") {
			t.Errorf("%s not derived after the restart: %q", s.Unit, s.Summary)
		}
	}
}
