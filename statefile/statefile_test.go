package statefile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// sampleState is a complete, valid state.
func sampleState() statefile.State {
	return statefile.State{
		Format:      statefile.Format,
		Version:     statefile.Version,
		SavedAt:     t0,
		Ledger:      []time.Time{t0.Add(-50 * time.Minute), t0.Add(-10 * time.Minute), t0.Add(-10 * time.Minute)},
		PausedUntil: t0.Add(5 * time.Minute),
		Snapshots: []statefile.Snapshot{{
			Project: "docs", Window: "7d", DateFrom: "2025-03-04", DateTo: "2025-03-11",
			Totals: client.Counts{Human: 10, AI: 7, Total: 15},
			Rows: []client.PathVisitors{
				{Path: "/", Counts: client.Counts{Human: 8, AI: 3, Total: 10}},
				{Path: `/odd "path"\`, Counts: client.Counts{Human: 2, AI: 4, Total: 5}},
			},
			Returned: 2, Pages: 1, Completed: t0.Add(-time.Minute), Duration: 1.25,
		}},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	want := sampleState()
	in := want
	in.Format, in.Version = "", 0 // Write fills them in
	if err := statefile.Write(path, in); err != nil {
		t.Fatal(err)
	}
	got, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// Overwriting replaces the content.
	want.Snapshots = nil
	if err := statefile.Write(path, want); err != nil {
		t.Fatal(err)
	}
	if got, err := statefile.Read(path); err != nil || len(got.Snapshots) != 0 {
		t.Errorf("after overwrite: %d snapshots, err %v; want 0, nil", len(got.Snapshots), err)
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	valid, err := json.Marshal(sampleState())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(st *statefile.State)) []byte {
		st := sampleState()
		f(&st)
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		content []byte
		foreign bool
		wantMsg string
	}{
		{"empty", nil, false, "corrupt"},
		{"truncated", valid[:len(valid)/2], false, "corrupt"},
		{"garbage", []byte("\x00\xff\x13garbage\x7f{{"), false, "corrupt"},
		{"json array", []byte(`[1,2,3]`), false, "corrupt"},
		{"wrong types", []byte(`{"format":"mintlify_exporter/state","version":"1"}`), false, "corrupt"},
		{"foreign format", edit(func(st *statefile.State) { st.Format = "node_exporter/textfile" }), true, "node_exporter/textfile"},
		{"no format", []byte(`{"version":1}`), true, "format"},
		{"foreign version", edit(func(st *statefile.State) { st.Version = statefile.Version + 1 }), true, "version 2"},
		{"missing dateFrom", edit(func(st *statefile.State) { st.Snapshots[0].DateFrom = "" }), false, "snapshot 0"},
		{"missing dateTo", edit(func(st *statefile.State) { st.Snapshots[0].DateTo = "" }), false, "snapshot 0"},
		{"bad date", edit(func(st *statefile.State) { st.Snapshots[0].DateTo = "2025-02-30" }), false, "snapshot 0"},
		{"missing completed", edit(func(st *statefile.State) { st.Snapshots[0].Completed = time.Time{} }), false, "incomplete"},
		{"missing project", edit(func(st *statefile.State) { st.Snapshots[0].Project = "" }), false, "incomplete"},
		{"missing window", edit(func(st *statefile.State) { st.Snapshots[0].Window = "" }), false, "incomplete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := statefile.Read(path)
			if err == nil {
				t.Fatalf("Read accepted the file: %+v", st)
			}
			if got := errors.Is(err, statefile.ErrForeign); got != tt.foreign {
				t.Errorf("errors.Is(err, ErrForeign) = %v, want %v (err: %v)", got, tt.foreign, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
			if !reflect.DeepEqual(st, statefile.State{}) {
				t.Errorf("Read returned a partial state with its error: %+v", st)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := statefile.Read(filepath.Join(t.TempDir(), "absent.json"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v, want os.ErrNotExist", err)
		}
	})
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for range 3 {
		if err := statefile.Write(path, sampleState()); err != nil {
			t.Fatal(err)
		}
	}
	if got := dirNames(t, dir); !reflect.DeepEqual(got, []string{"state.json"}) {
		t.Errorf("directory holds %q, want only state.json", got)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("state file mode %v is readable by others", perm)
	}
}

func TestFailedWriteKeepsOldFile(t *testing.T) {
	t.Run("encoding fails", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := statefile.Write(path, sampleState()); err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bad := sampleState()
		bad.SavedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // not encodable as RFC 3339
		if err := statefile.Write(path, bad); err == nil {
			t.Fatal("Write of an unencodable state succeeded")
		}
		now, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(now, old) {
			t.Error("a failed Write changed the old file")
		}
		if got := dirNames(t, dir); !reflect.DeepEqual(got, []string{"state.json"}) {
			t.Errorf("directory holds %q after a failed Write, want only state.json", got)
		}
	})
	t.Run("path is a directory", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		inside := filepath.Join(path, "keep")
		if err := os.WriteFile(inside, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := statefile.Write(path, sampleState())
		if err == nil {
			t.Fatal("Write over a directory succeeded")
		}
		if !strings.Contains(err.Error(), "write cache file") {
			t.Errorf("error %q does not say what failed", err)
		}
		if b, err := os.ReadFile(inside); err != nil || string(b) != "old" {
			t.Errorf("the directory's content changed: %q, %v", b, err)
		}
		if got := dirNames(t, dir); !reflect.DeepEqual(got, []string{"state.json"}) {
			t.Errorf("directory holds %q after a failed Write, want only state.json", got)
		}
	})
	t.Run("directory not writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root: directory permissions are not enforced")
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := statefile.Write(path, sampleState()); err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		changed := sampleState()
		changed.Snapshots = nil
		if err := statefile.Write(path, changed); err == nil {
			t.Fatal("Write into a read-only directory succeeded")
		}
		if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, old) {
			t.Errorf("a failed Write changed the old file (err %v)", err)
		}
	})
}

// exporter is a visitors collector and its budget, as main wires them.
type exporter struct {
	v         *collector.Visitors
	b         *collector.Budget
	refreshed chan struct{}
}

var windows = []collector.Window{{Name: "1d", Days: 1}, {Name: "7d", Days: 7}}

const perHour = 90

func newExporter(t *testing.T, srv *mintlifytest.Server, clk *mintlifytest.Clock, projects []string) *exporter {
	t.Helper()
	e := &exporter{b: collector.NewBudget(perHour, clk.Now), refreshed: make(chan struct{}, 16)}
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: srv.URL(), Key: key, Hooks: client.Hooks{Allow: e.b.Allow}})
	if err != nil {
		t.Fatal(err)
	}
	e.v, err = collector.NewVisitors(collector.VisitorsConfig{
		Client: c, Projects: projects, Windows: windows,
		MinInterval: 15 * time.Minute, PageSize: 100, MaxPages: 100, PageConcurrency: 2,
		Budget: e.b, Status: collector.NewStatus(), Now: clk.Now,
		OnSnapshot: func() { e.refreshed <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.v.Close)
	return e
}

// refreshAll makes a scrape-like Touch and waits for n refreshes to end.
func (e *exporter) refreshAll(t *testing.T, n int) {
	t.Helper()
	e.v.Touch(context.Background(), 0)
	timeout := time.NewTimer(10 * time.Second) // a bound, not a wait: refreshes signal when done
	defer timeout.Stop()
	for range n {
		select {
		case <-e.refreshed:
		case <-timeout.C:
			t.Fatalf("refreshes did not end")
		}
	}
}

func exposition(t *testing.T, v *collector.Visitors) string {
	t.Helper()
	var b bytes.Buffer
	if err := v.Exposition().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCacheEmptyPathDoesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	clk := mintlifytest.NewClock(t0)
	srv := mintlifytest.NewServer(mintlifytest.WithClock(clk.Now),
		mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 50, End: t0})))
	defer srv.Close()
	e := newExporter(t, srv, clk, []string{"docs"})
	e.refreshAll(t, len(windows))

	var logs bytes.Buffer
	c := statefile.New("", log.NewLogfmtLogger(&logs))
	c.Save(e.v, e.b)
	fresh := newExporter(t, srv, clk, []string{"docs"})
	c.Load(fresh.v, fresh.b)
	if fresh.v.Ready() || fresh.b.Used() != 0 || len(fresh.v.Snapshots()) != 0 {
		t.Errorf("a cache without a path restored state: ready %v, used %d", fresh.v.Ready(), fresh.b.Used())
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("a cache without a path wrote %q", got)
	}
	if logs.Len() != 0 {
		t.Errorf("a cache without a path logged: %s", logs.String())
	}
}

func TestCacheSaveLoadRoundTrip(t *testing.T) {
	clk := mintlifytest.NewClock(t0)
	projects := []string{"docs", "api"}
	srv := mintlifytest.NewServer(mintlifytest.WithClock(clk.Now),
		mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 420, End: t0})),
		mintlifytest.WithProject("api", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 2, Paths: 90, End: t0})))
	defer srv.Close()

	// First round at t0, second at t0+40m: the ledger then holds two
	// batches, 40 minutes apart.
	e := newExporter(t, srv, clk, projects)
	e.refreshAll(t, len(projects)*len(windows))
	first := srv.CountRequests(mintlifytest.EndpointVisitors)
	clk.Advance(40 * time.Minute)
	srv.ResetRequests()
	e.refreshAll(t, len(projects)*len(windows))
	second := srv.CountRequests(mintlifytest.EndpointVisitors)
	if first == 0 || second == 0 || e.b.Used() != first+second {
		t.Fatalf("setup: %d then %d requests, ledger holds %d", first, second, e.b.Used())
	}

	var logs bytes.Buffer
	path := filepath.Join(t.TempDir(), "state.json")
	cache := statefile.New(path, log.NewLogfmtLogger(&logs))
	cache.Save(e.v, e.b)
	if strings.Contains(logs.String(), "level=error") {
		t.Fatalf("Save failed: %s", logs.String())
	}
	st, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Snapshots) != len(projects)*len(windows) || len(st.Ledger) != first+second {
		t.Fatalf("file holds %d snapshots and %d ledger entries, want %d and %d",
			len(st.Snapshots), len(st.Ledger), len(projects)*len(windows), first+second)
	}

	for _, tc := range []struct {
		name     string
		at       time.Time
		wantUsed int
	}{
		{"both batches within the hour", t0.Add(50 * time.Minute), first + second},
		{"first batch older than an hour", t0.Add(70 * time.Minute), second},
		{"every entry older than an hour", t0.Add(101 * time.Minute), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk2 := mintlifytest.NewClock(tc.at)
			r := newExporter(t, srv, clk2, projects)
			if r.v.Ready() {
				t.Fatal("a fresh collector is ready before Load")
			}
			var logs bytes.Buffer
			statefile.New(path, log.NewLogfmtLogger(&logs)).Load(r.v, r.b)
			if !r.v.Ready() {
				t.Errorf("not ready after Load; log: %s", logs.String())
			}
			if got := r.b.Used(); got != tc.wantUsed {
				t.Errorf("budget Used() = %d after Load, want %d", got, tc.wantUsed)
			}
			if got := r.b.Remaining(); got != perHour-tc.wantUsed {
				t.Errorf("budget Remaining() = %d after Load, want %d", got, perHour-tc.wantUsed)
			}
			if !strings.Contains(logs.String(), "restored state from the cache file") {
				t.Errorf("Load did not log the restore: %s", logs.String())
			}
			compareSnapshots(t, r.v.Snapshots(), e.v.Snapshots())
			if got, want := exposition(t, r.v), exposition(t, e.v); got != want {
				t.Errorf("restored exposition differs (%d bytes, want %d)", len(got), len(want))
			}
		})
	}
}

func compareSnapshots(t *testing.T, got, want []*collector.Snapshot) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d snapshots, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Project != w.Project || g.Window != w.Window || g.Range != w.Range || g.Totals != w.Totals ||
			g.Returned != w.Returned || g.Pages != w.Pages || !g.Completed.Equal(w.Completed) {
			t.Errorf("snapshot %d: got %s/%s %v %+v returned %d pages %d completed %v; want %s/%s %v %+v returned %d pages %d completed %v",
				i, g.Project, g.Window, g.Range, g.Totals, g.Returned, g.Pages, g.Completed,
				w.Project, w.Window, w.Range, w.Totals, w.Returned, w.Pages, w.Completed)
		}
		if d := g.Duration - w.Duration; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("snapshot %d: duration %v, want %v", i, g.Duration, w.Duration)
		}
		if !reflect.DeepEqual(g.Rows, w.Rows) {
			t.Errorf("snapshot %d (%s/%s): %d rows differ from the %d saved", i, w.Project, w.Window, len(g.Rows), len(w.Rows))
		}
	}
}

func TestCacheLoadIgnoresBadFile(t *testing.T) {
	clk := mintlifytest.NewClock(t0)
	srv := mintlifytest.NewServer(mintlifytest.WithClock(clk.Now), mintlifytest.WithProject("docs", nil))
	defer srv.Close()
	for _, tc := range []struct{ name, content string }{
		{"garbage", "\x89PNG\r\n\x1a\nnot json"},
		{"foreign version", `{"format":"mintlify_exporter/state","version":99,"ledger":["2025-03-10T11:59:00Z"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			e := newExporter(t, srv, clk, []string{"docs"})
			var logs bytes.Buffer
			statefile.New(path, log.NewLogfmtLogger(&logs)).Load(e.v, e.b)
			if !strings.Contains(logs.String(), "ignoring the cache file") || !strings.Contains(logs.String(), path) {
				t.Errorf("no warning naming the file: %s", logs.String())
			}
			if e.v.Ready() || e.b.Used() != 0 {
				t.Errorf("a bad file restored state: ready %v, used %d", e.v.Ready(), e.b.Used())
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		e := newExporter(t, srv, clk, []string{"docs"})
		var logs bytes.Buffer
		statefile.New(filepath.Join(t.TempDir(), "none.json"), log.NewLogfmtLogger(&logs)).Load(e.v, e.b)
		if strings.Contains(logs.String(), "ignoring") || !strings.Contains(logs.String(), "no cache file yet") {
			t.Errorf("a missing file is not reported as a first start: %s", logs.String())
		}
	})
}
