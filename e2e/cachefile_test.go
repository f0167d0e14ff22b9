package e2e

// --cache.file: a restart serves the saved snapshots and spends no
// requests; a bad file is ignored with a warning and replaced.

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

func TestCacheFileRestart(t *testing.T) {
	t.Parallel()
	today := utcToday()
	projects := []string{"cache-a", "cache-b"}
	srv := newFake(t, today, map[string]int{"cache-a": 520, "cache-b": 40})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	args := append(exporterArgs(srv.URL(), projects...), "--cache.file="+cacheFile)

	first := startExporter(t, keyEnv, args...)
	_, fams1 := first.scrape(t)
	want := checkVisitors(t, fams1, srv, projects, today)
	waitCount(t, srv, want)
	first.stop(t)
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != want {
		t.Fatalf("first run: %d visitors requests, want %d", n, want)
	}
	st, err := statefile.Read(cacheFile)
	if err != nil {
		t.Fatalf("the cache file is not valid after the first run: %v", err)
	}
	// Each window is two units: its site totals and its page walk.
	if len(st.Units) != 2*len(projects)*len(windowDays) || len(st.Ledger) != want {
		t.Errorf("cache file: %d units and %d ledger entries, want %d and %d",
			len(st.Units), len(st.Ledger), 2*len(projects)*len(windowDays), want)
	}

	second := startExporter(t, keyEnv, args...)
	// Ready at once: no waiting, no polling.
	if resp, body := second.get(t, "/-/ready", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/-/ready right after a restart: %d %s", resp.StatusCode, body)
	}
	resp, body := second.get(t, "/metrics", nil) // no scrape timeout header: nothing to wait for
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d", resp.StatusCode)
	}
	fams2 := promtest.ParseText(t, body)
	if a, b := familyText(t, fams1, visitorsFamilies...), familyText(t, fams2, visitorsFamilies...); a != b {
		t.Error("the restarted exporter serves other visitors values than before the restart")
	}
	checkVisitors(t, fams2, srv, projects, today)
	got := series(fams2)
	if v := got[key("mintlify_api_budget_remaining")]; v != float64(90-want) {
		t.Errorf("mintlify_api_budget_remaining after the restart = %v, want 90-%d = %d", v, want, 90-want)
	}
	for _, proj := range projects {
		if v := got[key("mintlify_up", "project", proj, "source", "visitors")]; v != 1 {
			t.Errorf("mintlify_up for %s after the restart = %v, want 1", proj, v)
		}
	}
	if _, ok := fams2["mintlify_api_requests_total"]; ok {
		t.Error("the restarted exporter counts API requests")
	}
	second.stop(t)
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != want {
		t.Errorf("the restarted exporter sent %d visitors requests, want none", n-want)
	}
	logs := second.stderr.String()
	if !strings.Contains(logs, "restored state from the cache file") {
		t.Errorf("no restore logged:\n%s", logs)
	}
	if strings.Contains(logs, `msg="visitors refreshed"`) {
		t.Error("the restarted exporter refreshed")
	}
	if st, err := statefile.Read(cacheFile); err != nil || len(st.Ledger) != want {
		t.Errorf("cache file after the second run: %d ledger entries, %v; want %d", len(st.Ledger), err, want)
	}
	assertNoSecret(t, map[string]string{
		"first stderr": first.stderr.String(), "second stderr": logs, "cache file": mustRead(t, cacheFile),
	}, defaultKeyMark)
	skipIfDayChanged(t, today)
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCacheFileIgnoredWhenBad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, content string }{
		{"garbage", "\x00\x01PK\x03\x04 definitely { not json"},
		{"foreign version", `{"format":"mintlify_exporter/state","version":999,"ledger":[],"snapshots":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			today := utcToday()
			srv := newFake(t, today, map[string]int{"docs": 300})
			cacheFile := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(cacheFile, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			p := startExporter(t, keyEnv, append(exporterArgs(srv.URL(), "docs"), "--cache.file="+cacheFile)...)
			_, fams := p.scrape(t)
			want := checkVisitors(t, fams, srv, []string{"docs"}, today)
			waitCount(t, srv, want)
			p.stop(t)
			logs := p.stderr.String()
			if !strings.Contains(logs, "ignoring the cache file") || !strings.Contains(logs, "level=warn") {
				t.Errorf("no warning about the cache file:\n%s", logs)
			}
			st, err := statefile.Read(cacheFile)
			if err != nil {
				t.Fatalf("the cache file was not replaced by a valid one: %v", err)
			}
			if len(st.Units) != 2*len(windowDays) || len(st.Ledger) != want {
				t.Errorf("new cache file: %d units, %d ledger entries; want %d, %d",
					len(st.Units), len(st.Ledger), 2*len(windowDays), want)
			}
			skipIfDayChanged(t, today)
		})
	}
}

// TestTwoExportersOnOneCacheFile: a second exporter given the cache file
// of a running one refuses to start, with one line naming the lock file
// and the PID holding it, and sends nothing: two would spend two budgets.
// Once the first stopped, it starts.
func TestTwoExportersOnOneCacheFile(t *testing.T) {
	t.Parallel()
	today := utcToday()
	srv := newFake(t, today, map[string]int{"lock-a": 40})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	args := append(exporterArgs(srv.URL(), "lock-a"), "--cache.file="+cacheFile)
	first := startExporter(t, keyEnv, args...)
	first.scrape(t)
	sent := len(srv.Requests())

	r := runExporter(t, keyEnv, append(args, "--web.listen-address=127.0.0.1:0")...)
	pid := strconv.Itoa(first.cmd.Process.Pid)
	var errLines []string // the start's info lines aside
	for _, l := range logLines(r.stderr) {
		if !strings.Contains(l, "level=info") {
			errLines = append(errLines, l)
		}
	}
	if r.code == 0 || len(errLines) != 1 || !strings.Contains(errLines[0], cacheFile+statefile.LockSuffix) || !strings.Contains(errLines[0], "PID "+pid) {
		t.Errorf("second exporter: exit %d, error lines %q; want one naming %s and PID %s\n%s", r.code, errLines, cacheFile+statefile.LockSuffix, pid, r.stderr)
	}
	if n := len(srv.Requests()); n != sent {
		t.Errorf("the refused exporter sent %d requests", n-sent)
	}
	first.stop(t)
	startExporter(t, keyEnv, args...).stop(t)
}

// TestSecondExporterRefusedWhenTheLockFileWasRemoved: with FILE.lock
// removed while the first exporter runs (a cleaner took it for stale), a
// second exporter on the same --cache.file started and spent a second
// budget. The first keeps its budget journal locked: the second exits with
// one line naming the journal, and sends nothing.
func TestSecondExporterRefusedWhenTheLockFileWasRemoved(t *testing.T) {
	t.Parallel()
	today := utcToday()
	srv := newFake(t, today, map[string]int{"lock-b": 40})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	args := append(exporterArgs(srv.URL(), "lock-b"), "--cache.file="+cacheFile)
	first := startExporter(t, keyEnv, args...)
	first.scrape(t)
	sent := len(srv.Requests())
	if err := os.Remove(cacheFile + statefile.LockSuffix); err != nil {
		t.Fatal(err)
	}
	r := runExporter(t, keyEnv, append(args, "--web.listen-address=127.0.0.1:0")...)
	var errLines []string
	for _, l := range logLines(r.stderr) {
		if !strings.Contains(l, "level=info") {
			errLines = append(errLines, l)
		}
	}
	if r.code == 0 || len(errLines) != 1 || !strings.Contains(errLines[0], cacheFile+statefile.JournalSuffix) || !strings.Contains(errLines[0], "in use by another exporter") {
		t.Errorf("second exporter: exit %d, error lines %q; want one naming %s\n%s", r.code, errLines, cacheFile+statefile.JournalSuffix, r.stderr)
	}
	if n := len(srv.Requests()); n != sent {
		t.Errorf("the second exporter sent %d requests", n-sent)
	}
	first.stop(t)
}
