package statefile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// TestJournalSurvivesAKill: what a journal recorded is on disk when the
// call returns, without Close (a SIGKILL never closes it), and a torn last
// line is skipped.
func TestJournalSurvivesAKill(t *testing.T) {
	clk := mintlifytest.NewClock(t0)
	path := filepath.Join(t.TempDir(), "state.json.ledger")
	j, st, err := statefile.OpenJournal(path, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sent) != 0 || !st.PausedUntil.IsZero() {
		t.Fatalf("a new journal holds %+v", st)
	}
	want := []time.Time{t0.Add(-time.Minute), t0, t0}
	for _, s := range want {
		if err := j.Spent(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Paused(t0.Add(10 * time.Minute)); err != nil {
		t.Fatal(err)
	}
	// Killed here: the exit drops the journal's lock (Close writes
	// nothing, as a kill would not). A half-written line follows.
	j.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("s 17")
	f.Close()

	j2, st, err := statefile.OpenJournal(path, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if !slices.EqualFunc(st.Sent, want, time.Time.Equal) {
		t.Errorf("reopened journal holds %v, want %v", st.Sent, want)
	}
	if !st.PausedUntil.Equal(t0.Add(10*time.Minute)) || st.Skipped != 1 {
		t.Errorf("paused until %s, %d lines skipped; want %s and 1", st.PausedUntil, st.Skipped, t0.Add(10*time.Minute))
	}
	// The budget restored from it refuses what a crash forgot.
	b := budget.New(3, clk.Now)
	b.Restore(st.Sent, st.PausedUntil)
	if b.Remaining() != 0 || b.PausedUntil().IsZero() {
		t.Errorf("restored budget: %d remaining, paused until %s", b.Remaining(), b.PausedUntil())
	}
}

// TestJournalCompacts: opening drops entries older than an hour and a
// pause that has ended; appends go on after the compaction.
func TestJournalCompacts(t *testing.T) {
	clk := mintlifytest.NewClock(t0)
	path := filepath.Join(t.TempDir(), "state.json.ledger")
	j, _, err := statefile.OpenJournal(path, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	j.Spent(t0)
	j.Paused(t0.Add(time.Minute))
	clk.Advance(30 * time.Minute)
	j.Spent(clk.Now())
	j.Close()
	clk.Advance(40 * time.Minute) // the first request is 70 minutes old
	j, st, err := statefile.OpenJournal(path, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sent) != 2 {
		t.Fatalf("read %d requests, want both as written", len(st.Sent))
	}
	j.Spent(clk.Now())
	b, _ := os.ReadFile(path)
	if lines := strings.Count(string(b), "\n"); lines != 2 || strings.Contains(string(b), "p ") {
		t.Errorf("compacted journal:\n%s\nwant the two requests of the last hour and no pause", b)
	}
	j.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("journal mode: %v %v, want 0600", fi.Mode(), err)
	}
}

func TestJournalRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "state.json.ledger")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if _, _, err := statefile.OpenJournal(fifo, time.Now); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO journal: %v", err)
	}
	if _, _, err := statefile.OpenJournal(dir, time.Now); err == nil {
		t.Error("a directory was accepted as the journal")
	}
}

// TestCleanTemp: temporary files of interrupted saves (of the cache file
// and of the journal) are removed at start; other files are not.
func TestCleanTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state[1].json")
	leftovers := []string{"state[1].json.tmp-123", "state[1].json.ledger.tmp-9"}
	keep := []string{"state[1].json", "state[1].json.ledger", "state.json.tmp-1", "other.tmp-1"}
	for _, n := range append(slices.Clone(leftovers), keep...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	statefile.CleanTemp(path, "", log.NewLogfmtLogger(&logs))
	if want := `msg="removed temporary files left by an interrupted save" files=state[1].json.ledger.tmp-9,state[1].json.tmp-123`; strings.TrimSpace(logs.String()) != `level=info `+want {
		t.Errorf("logged %q, want one line: %s", logs.String(), want)
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed", n)
		}
	}
	for _, n := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%s is still there", n)
		}
	}
}

// TestRestoreClampsTimes: times of the cache file are not trusted: a
// ledger and a pause in 2099 do not stop refreshes for good, and a
// completion time in the future counts as now.
func TestRestoreClampsTimes(t *testing.T) {
	rig := apitest.NewRig(t, t0, mintlifytest.WithProject("docs", nil))
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	u := sampleState().Units[0]
	u.Window, u.DateFrom, u.DateTo = "1d", "2025-03-10", "2025-03-11"
	u.Completed = future
	x := newExporter(t, rig, []string{"docs"}, &engine.State{
		Ledger: []time.Time{future, future.Add(time.Hour)}, PausedUntil: future, Units: []engine.UnitData{u},
	})
	if got := x.b.PausedUntil(); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("a pause until 2099 restored as %s, want an hour from now (%s)", got, t0.Add(time.Hour))
	}
	if got := x.b.Used(); got != 2 {
		t.Errorf("budget used %d after restoring 2 future requests, want 2 (counted as sent now)", got)
	}
	rig.Clock.Advance(time.Hour + time.Second)
	if x.b.Used() != 0 || !x.b.PausedUntil().IsZero() {
		t.Errorf("an hour later: %d used, paused until %s; want 0 and no pause", x.b.Used(), x.b.PausedUntil())
	}
	// The unit and, from its data, its window's site totals.
	st := x.e.State()
	if len(st.Units) != 2 || !st.Units[0].Completed.Equal(t0) || !st.Units[1].Completed.Equal(t0) {
		t.Errorf("restored units %+v, want the window's two parts completed at %s", st.Units, t0)
	}
}

// TestJournalCompactsWhenLong: a long journal is rewritten with the last
// hour only, and a large budget does not make it rewrite at every request.
func TestJournalCompactsWhenLong(t *testing.T) {
	if testing.Short() {
		t.Skip("9,000 synced writes (seconds on a slow disk): skipped under -short")
	}
	clk := mintlifytest.NewClock(t0)
	path := filepath.Join(t.TempDir(), "state.json.ledger")
	j, _, err := statefile.OpenJournal(path, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for range 5000 { // older than an hour once the clock moves
		j.Spent(clk.Now())
	}
	clk.Advance(2 * time.Hour)
	for range 4000 { // the file reaches 8192 lines (twice the 4096 the first compaction kept)
		j.Spent(clk.Now())
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n > 4000 {
		t.Errorf("%d lines, want at most the 4000 of the last hour: the 5000 older ones are compacted away", n)
	}
	j.Close()
	_, st, err := statefile.OpenJournal(path, clk.Now)
	if err != nil || len(st.Sent) != 4000 {
		t.Errorf("reopened: %d requests, %v; want 4000", len(st.Sent), err)
	}
}

// TestJournalWrittenAgainWhenRemoved: a journal removed (or replaced) while
// the exporter runs is written again from memory at the next append, a
// pause as well as a request, so a restart still finds both.
func TestJournalWrittenAgainWhenRemoved(t *testing.T) {
	clk := mintlifytest.NewClock(t0)
	path := filepath.Join(t.TempDir(), "state.json.ledger")
	j, _, err := statefile.OpenJournal(path, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Spent(t0); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := j.Paused(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	_, st, err := statefile.OpenJournal(path, clk.Now)
	if err != nil || len(st.Sent) != 1 || !st.PausedUntil.Equal(t0.Add(time.Hour)) {
		t.Errorf("reopened after a removal and a pause: %+v, %v; want the request and the pause", st, err)
	}
}
