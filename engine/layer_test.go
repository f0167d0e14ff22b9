package engine

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// fakeLayer is a Layer whose reads and servings the test sets; it records
// what the engine tells it.
type fakeLayer struct {
	e *Engine

	mu      sync.Mutex
	reads   []Read
	serving map[Unit]Serving
	done    []string // "range: value" or "range: error"
	notes   []string // "unit prev -> data"
	// serve, when set, is served as the data of serve.u with each refresh
	// of from.
	from Unit
	to   *Unit
}

func (l *fakeLayer) Attach(e *Engine) { l.e = e }

func (l *fakeLayer) Reads(time.Time) []Read {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reads)
}

func (l *fakeLayer) Serves(u Unit) Serving {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.serving[u]
}

func (l *fakeLayer) Refreshed(u Unit, prev, data Data) {
	l.mu.Lock()
	l.notes = append(l.notes, u.String()+" "+prev.Range.String()+" -> "+data.Range.String())
	to := l.to
	l.mu.Unlock()
	if to != nil && u == l.from {
		d, ok := l.e.Data(u)
		if !ok || d.Completed != data.Completed {
			panic("Data is not the refresh told of")
		}
		l.e.Serve(*to, Data{Range: to.Window.Range(data.Completed), Result: &Result{Samples: [][]Sample{{{Value: 42}}}}, Completed: data.Completed})
	}
}

// read adds a read of u over the day before t0 that records its outcome
// and is dropped once it succeeds.
func (l *fakeLayer) read(u Unit, worth float64) client.DateRange {
	day := client.DateOf(t0).AddDays(-1)
	rng := client.DateRange{From: day, To: day.AddDays(1)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads = append(l.reads, Read{Unit: u, Range: rng, Worth: worth, Done: func(res *Result, err error, _ time.Time) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if err != nil {
			l.done = append(l.done, rng.String()+": "+err.Error())
			return
		}
		l.done = append(l.done, rng.String()+": ok")
		l.reads = slices.DeleteFunc(l.reads, func(r Read) bool { return r.Unit == u && r.Range == rng })
	}})
	return rng
}

func (l *fakeLayer) got() (done, notes []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.done), slices.Clone(l.notes)
}

func newLayerRig(t *testing.T, windows ...string) (*rig, *memSource, *fakeLayer) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 100, projects: []string{"docs"}, windows: windows},
		func(b *budget.Budget) Source { src = newMemSource("a", b); return src })
	l := &fakeLayer{serving: map[Unit]Serving{}}
	r.e.cfg.Layer = l
	l.Attach(r.e)
	return r, src, l
}

func unitOf(t *testing.T, name string) Unit {
	t.Helper()
	parts := strings.Split(name, "/")
	w, err := ParseWindow(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	return Unit{Source: parts[0], Project: parts[1], Window: w}
}

// TestLayerReadIsScheduledOnce: a layer's read of a fixed range goes by the
// rule after the units without data, once; a failure is handed to the
// layer, backs the read off 30 seconds, and a 429 pauses every request.
func TestLayerReadIsScheduledOnce(t *testing.T) {
	r, src, l := newLayerRig(t, "1d")
	u := unitOf(t, "a/docs/1d")
	rng := l.read(u, 0.05)
	l.read(unitOf(t, "a/other/1d"), 1) // no such unit: never read
	r.e.Start()
	r.settle()
	if got := src.fetched(); !slices.Equal(got, []string{"a/docs/1d", "a/docs/1d"}) {
		t.Fatalf("fetched %v, want the 1d unit, then the read", got)
	}
	src.mu.Lock()
	ranges := slices.Clone(src.ranges)
	src.mu.Unlock()
	if ranges[0] != u.Window.Range(t0) || ranges[1] != rng {
		t.Errorf("ranges %v, want the window's, then %s", ranges, rng)
	}
	if done, _ := l.got(); !slices.Equal(done, []string{rng.String() + ": ok"}) {
		t.Errorf("done %v", done)
	}
	r.clock.Advance(time.Minute)
	r.settle()
	if n := src.count("docs", "1d"); n != 2 {
		t.Errorf("%d fetches, want 2: a read once done is not repeated", n)
	}

	src.setFail("docs", "1d", rateLimited(time.Minute))
	l.read(u, 0.05)
	r.settle()
	if done, _ := l.got(); len(done) != 2 || !strings.Contains(done[1], "429") {
		t.Fatalf("done %v, want the 429 handed on", done)
	}
	if paused := r.b.PausedUntil(); !paused.Equal(r.clock.Now().Add(time.Minute)) {
		t.Errorf("paused until %s, want a minute from now", paused)
	}
	src.setFail("docs", "1d", nil)
	r.clock.Advance(time.Minute + 29*time.Second)
	r.settle()
	if done, _ := l.got(); len(done) != 3 || done[2] != rng.String()+": ok" {
		t.Errorf("done %v, want the read again once the pause ended", done)
	}
}

// TestLayerReadBacksOff: a failed read waits 30 seconds.
func TestLayerReadBacksOff(t *testing.T) {
	r, src, l := newLayerRig(t, "1d")
	r.e.Start()
	r.settle()
	src.setFail("docs", "1d", errServer)
	l.read(unitOf(t, "a/docs/1d"), 0.05)
	r.settle()
	r.clock.Advance(29 * time.Second)
	r.settle()
	if done, _ := l.got(); len(done) != 1 {
		t.Fatalf("done %v, want one failure within 30 s", done)
	}
	r.clock.Advance(time.Second)
	r.settle()
	if done, _ := l.got(); len(done) != 2 {
		t.Errorf("done %v, want a second attempt after 30 s", done)
	}
}

// TestLayerServes: a unit the layer serves is never read; its data is what
// the layer serves as its Like refreshes; once no longer served it is read
// from Serving.From on.
func TestLayerServes(t *testing.T) {
	r, src, l := newLayerRig(t, "1d", "7d")
	d1, d7 := unitOf(t, "a/docs/1d"), unitOf(t, "a/docs/7d")
	l.serving[d7] = Serving{On: true, Like: d1}
	l.from, l.to = d1, &d7
	r.e.Start()
	r.settle()
	if n := src.count("docs", "7d"); n != 0 {
		t.Fatalf("the served unit was read %d times", n)
	}
	if !strings.Contains(r.text(), `test_a_fetches{project="docs",window="7d"} 42`) {
		t.Errorf("the served data is not exported:\n%s", r.text())
	}
	if st := r.state("a/docs/7d"); st.Completed != r.state("a/docs/1d").Completed || st.State != StateOK {
		t.Errorf("7d: %+v", st)
	}
	// Its next data comes with the 1d unit's next refresh, not "now".
	if st7, st1 := r.state("a/docs/7d"), r.state("a/docs/1d"); !st7.Next.Equal(st1.Next) || !st7.Next.After(r.clock.Now()) ||
		st7.Interval != st1.Interval || st7.Interval <= 0 {
		t.Errorf("7d next refresh %s, interval %s; want the 1d unit's %s and %s, after now %s", st7.Next, st7.Interval, st1.Next, st1.Interval, r.clock.Now())
	}
	r.clock.Advance(time.Hour)
	r.settle()
	_, notes := l.got()
	today := d1.Window.Range(t0).String()
	if want := []string{"a/docs/1d [0000-00-00, 0000-00-00) -> " + today, "a/docs/1d " + today + " -> " + today}; !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	l.mu.Lock()
	l.serving[d7], l.to = Serving{From: r.clock.Now().Add(time.Hour)}, nil
	l.mu.Unlock()
	r.clock.Advance(59 * time.Minute)
	r.settle()
	if n := src.count("docs", "7d"); n != 0 {
		t.Fatalf("read %d times before Serving.From", n)
	}
	r.clock.Advance(time.Minute)
	r.settle()
	if n := src.count("docs", "7d"); n != 1 {
		t.Errorf("read %d times at Serving.From, want 1", n)
	}
}
