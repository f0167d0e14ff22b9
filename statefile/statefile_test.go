package statefile_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// sampleState is a complete, valid file.
func sampleState() statefile.File {
	return statefile.File{
		Format:  statefile.Format,
		Version: statefile.Version,
		SavedAt: t0,
		State: engine.State{
			Ledger:      []time.Time{t0.Add(-50 * time.Minute), t0.Add(-10 * time.Minute), t0.Add(-10 * time.Minute)},
			PausedUntil: t0.Add(5 * time.Minute),
			Units: []engine.UnitData{{
				Source: "visitors", Project: "docs", Window: "7d", DateFrom: "2025-03-04", DateTo: "2025-03-11",
				Families: map[string][]engine.Sample{
					"mintlify_visitors": {{Labels: [2]string{"human"}, Value: 10}, {Labels: [2]string{"ai"}, Value: 7}},
					"mintlify_page_visitors": {
						{Labels: [2]string{"/", "human"}, Value: 8},
						{Labels: [2]string{`/odd "path"\`, "ai"}, Value: 4.5},
					},
				},
				Cost: 1, Summary: "2 paths, 2 exported", Completed: t0.Add(-time.Minute), DurationSeconds: 1.25,
			}},
		},
		Days: []derived.Day{{Source: "views", Project: "docs", Site: true, Day: "2025-03-09", ReadAt: t0.Add(-11 * time.Hour), Cost: 1,
			Families: map[string][]engine.Sample{"mintlify_views": {{Labels: [2]string{"human"}, Value: 3}}}}},
	}
}

// TestDaysStayAtTheTopLevel: the day store of derived windows is the
// file's "days", where the engine's state kept it before package derived
// took it over: a file written then restores its days.
func TestDaysStayAtTheTopLevel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	old := `{"format":"mintlify_exporter/state","version":2,"savedAt":"2025-03-10T12:00:00Z","ledger":null,"pausedUntil":"0001-01-01T00:00:00Z","units":null,` +
		`"days":[{"source":"views","project":"docs","site":true,"day":"2025-03-09","readAt":"2025-03-10T01:00:00Z","cost":1,"families":{"mintlify_views":[["human",3]]}}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := sampleState().Days; !reflect.DeepEqual(got.Days, want) {
		t.Errorf("days:\n got %+v\nwant %+v", got.Days, want)
	}
	if err := statefile.Write(path, got); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &top) != nil || top["days"] == nil {
		t.Errorf("the file written has no top-level days (%v): %s", err, top)
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
	want.Units = nil
	if err := statefile.Write(path, want); err != nil {
		t.Fatal(err)
	}
	if got, err := statefile.Read(path); err != nil || len(got.Units) != 0 {
		t.Errorf("after overwrite: %d units, err %v; want 0, nil", len(got.Units), err)
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	valid, err := json.Marshal(sampleState())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(st *statefile.File)) []byte {
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
		{"foreign format", edit(func(st *statefile.File) { st.Format = "node_exporter/textfile" }), true, "node_exporter/textfile"},
		{"no format", []byte(`{"version":1}`), true, "format"},
		{"foreign version", edit(func(st *statefile.File) { st.Version = statefile.Version + 1 }), true, "version 3"},
		{"the first version", edit(func(st *statefile.File) { st.Version = 1 }), true, "version 1"},
		{"missing completed", edit(func(st *statefile.File) { st.Units[0].Completed = time.Time{} }), false, "incomplete"},
		{"missing source", edit(func(st *statefile.File) { st.Units[0].Source = "" }), false, "incomplete"},
		{"missing project", edit(func(st *statefile.File) { st.Units[0].Project = "" }), false, "incomplete"},
		{"missing window", edit(func(st *statefile.File) { st.Units[0].Window = "" }), false, "incomplete"},
		{"sample not an array", []byte(strings.Replace(string(valid), `["human",10]`, `{"human":10}`, 1)), false, "corrupt"},
		{"sample with three labels", []byte(strings.Replace(string(valid), `["human",10]`, `["a","b","c",10]`, 1)), false, "corrupt"},
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
			if got := strings.Contains(err.Error(), "not a mintlify_exporter state file of this version"); got != tt.foreign {
				t.Errorf("error %q names another format or version: %v, want %v", err, got, tt.foreign)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
			if !reflect.DeepEqual(st, statefile.File{}) {
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
		changed.Units = nil
		if err := statefile.Write(path, changed); err == nil {
			t.Fatal("Write into a read-only directory succeeded")
		}
		if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, old) {
			t.Errorf("a failed Write changed the old file (err %v)", err)
		}
	})
}

// exporter is an engine with the visitors source and its budget on a
// rig, as main wires them, with its log kept.
type exporter struct {
	*apitest.Rig
	e    *engine.Engine
	b    *budget.Budget
	logs *logbuf.Buffer
}

var windows = []engine.Window{{Name: "1d", Days: 1}, {Name: "7d", Days: 7}}

const perHour = 90

func newExporter(t *testing.T, rig *apitest.Rig, projects []string, restore *engine.State) *exporter {
	t.Helper()
	x := &exporter{Rig: rig, logs: &logbuf.Buffer{}}
	x.b = rig.Budget(perHour)
	c := rig.Client(client.Config{Hooks: client.Hooks{Allow: x.b.Allow}})
	src := collector.NewVisitors(c.PathsPage, collector.Options{PageSize: 100, MaxPages: 100})
	x.e = rig.Engine(engine.Config{
		Sources: []engine.Source{src}, Projects: projects, Windows: windows, MinInterval: 15 * time.Minute,
		Budget: x.b, Restore: restore, Logger: log.NewLogfmtLogger(x.logs),
	})
	return x
}

// units is the number of units of projects: each window of the visitors
// source is two, its site totals and its page walk.
func units(projects []string) int { return 2 * len(projects) * len(windows) }

func exposition(t *testing.T, e *engine.Engine) string {
	t.Helper()
	var b bytes.Buffer
	if err := e.Exposition().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSaverEmptyPathDoesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	calls := 0
	s := statefile.NewPartsSaver("", statefile.Parts{Engine: func() engine.State { calls++; return engine.State{} }}, nil)
	s.Changed()
	s.Save()
	s.Close()
	if calls != 0 || len(dirNames(t, dir)) != 0 {
		t.Fatalf("an empty path read the state %d times, wrote %v", calls, dirNames(t, dir))
	}
	if statefile.LoadFile("", log.NewNopLogger()) != nil {
		t.Fatal("Load of an empty path returned a state")
	}
}

func TestCacheSaveLoadRoundTrip(t *testing.T) {
	projects := []string{"docs", "api"}
	rig := apitest.NewRig(t, t0,
		mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 420, End: t0})),
		mintlifytest.WithProject("api", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 2, Paths: 90, End: t0})))

	// First round at t0, second at t0+40m: the ledger then holds two
	// batches, 40 minutes apart.
	x := newExporter(t, rig, projects, nil)
	rig.Refresh(x.e)
	first := rig.Fake.CountRequests(mintlifytest.EndpointVisitors)
	rig.Clock.Advance(40 * time.Minute)
	rig.Fake.ResetRequests()
	rig.Refresh(x.e)
	second := rig.Fake.CountRequests(mintlifytest.EndpointVisitors)
	if first == 0 || second == 0 || x.b.Used() != first+second {
		t.Fatalf("setup: %d then %d requests, ledger holds %d", first, second, x.b.Used())
	}

	var logs bytes.Buffer
	path := filepath.Join(t.TempDir(), "state.json")
	saver := statefile.NewPartsSaver(path, statefile.Parts{Engine: x.e.State}, log.NewLogfmtLogger(&logs))
	saver.Save()
	if strings.Contains(logs.String(), "level=error") {
		t.Fatalf("Save failed: %s", logs.String())
	}
	st, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Units) != units(projects) || len(st.Ledger) != first+second {
		t.Fatalf("file holds %d units and %d ledger entries, want %d and %d",
			len(st.Units), len(st.Ledger), units(projects), first+second)
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
			var logs bytes.Buffer
			f := statefile.LoadFile(path, log.NewLogfmtLogger(&logs))
			if f == nil {
				t.Fatalf("Load returned nothing: %s", logs.String())
			}
			r := newExporter(t, apitest.NewRig(t, tc.at), projects, &f.State) // not started: nothing is sent
			if !r.e.Ready() {
				t.Errorf("not ready after the restore; log: %s", logs.String())
			}
			if got := r.b.Used(); got != tc.wantUsed {
				t.Errorf("budget Used() = %d after the restore, want %d", got, tc.wantUsed)
			}
			if got := r.b.Remaining(); got != perHour-tc.wantUsed {
				t.Errorf("budget Remaining() = %d after the restore, want %d", got, perHour-tc.wantUsed)
			}
			if got, want := exposition(t, r.e), exposition(t, x.e); got != want {
				t.Errorf("restored exposition differs (%d bytes, want %d)", len(got), len(want))
			}
			if got, want := r.e.State(), x.e.State(); !reflect.DeepEqual(got.Units, want.Units) {
				t.Errorf("restored units differ from the saved ones")
			}
		})
	}
}

func TestCacheLoadIgnoresBadFile(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"garbage", "\x89PNG\r\n\x1a\nnot json"},
		{"foreign version", `{"format":"mintlify_exporter/state","version":99,"ledger":["2025-03-10T11:59:00Z"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			if st := statefile.LoadFile(path, log.NewLogfmtLogger(&logs)); st != nil {
				t.Errorf("a bad file restored state: %+v", st)
			}
			if !strings.Contains(logs.String(), "ignoring the cache file") || !strings.Contains(logs.String(), path) {
				t.Errorf("no warning naming the file: %s", logs.String())
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		var logs bytes.Buffer
		if st := statefile.LoadFile(filepath.Join(t.TempDir(), "none.json"), log.NewLogfmtLogger(&logs)); st != nil {
			t.Errorf("a missing file restored state")
		}
		if strings.Contains(logs.String(), "ignoring") || !strings.Contains(logs.String(), "no cache file yet") {
			t.Errorf("a missing file is not reported as a first start: %s", logs.String())
		}
	})
}

// TestRestoreIgnoresUnitsThatDoNotFit: units of other projects or windows,
// or whose families the source does not export, are ignored; the rest is
// restored.
func TestRestoreIgnoresUnitsThatDoNotFit(t *testing.T) {
	good := sampleState().Units[0]
	good.Window, good.DateFrom, good.DateTo = "1d", "2025-03-10", "2025-03-11"
	other := good
	other.Project = "elsewhere"
	foreign := good
	foreign.Window = "7d"
	foreign.Families = map[string][]engine.Sample{"mintlify_no_such_family": {{Value: 1}}}
	badLabels := good
	badLabels.Window = "7d"
	badLabels.Families = map[string][]engine.Sample{"mintlify_visitors_deduplicated": {{Labels: [2]string{"x"}, Value: 1}}}
	x := newExporter(t, apitest.NewRig(t, t0, mintlifytest.WithProject("docs", nil)), []string{"docs"},
		&engine.State{Units: []engine.UnitData{good, other, foreign, badLabels}})
	text := exposition(t, x.e)
	if !strings.Contains(text, `mintlify_page_visitors{path="/odd \"path\"\\",project="docs",traffic="ai",window="1d"} 4.5`) {
		t.Errorf("the good unit was not restored:\n%s", text)
	}
	if strings.Contains(text, "elsewhere") || strings.Contains(text, `window="7d"`) {
		t.Errorf("a unit that does not fit was restored:\n%s", text)
	}
}
