package e2e

// A hostile --cache.file: the exporter serves, refreshes and stops on
// SIGTERM as with none, and exports nothing an API answer could not give.

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// TestHostileCacheFileDoesNotFreeze: a cache file whose units claim a cost
// of 10^15 requests (a walk sends at most 1,000) froze the worker under
// the engine's lock: no request went out, the landing page hung, and
// SIGTERM did not end the process. With that file, a duplicate series, a
// count of -1e308 and a 2 MB path, the exporter answers its landing page,
// refreshes (requests reach the fake), exports none of the hostile series
// and exits on SIGTERM within the harness's bound.
func TestHostileCacheFileDoesNotFreeze(t *testing.T) {
	exporterBinary(t) // skips under -short before the 6 MB cache file is written
	t.Parallel()
	today := utcToday()
	srv := newFake(t, today, map[string]int{"hostile": 120})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	from, to := windowRange(today, 7)
	var units []engine.UnitData
	for _, w := range []string{"1d", "7d", "30d"} {
		units = append(units, engine.UnitData{
			Source: "visitors", Project: "hostile", Window: w,
			DateFrom: from.Format(time.DateOnly), DateTo: to.Format(time.DateOnly),
			Completed: time.Now().Add(-20 * time.Hour), Cost: 1e15, DurationSeconds: 1e300,
			Families: map[string][]engine.Sample{
				"mintlify_visitors": {{Labels: [2]string{"human"}, Value: 5}, {Labels: [2]string{"human"}, Value: 6}, {Labels: [2]string{"ai"}, Value: -1e308}},
				"mintlify_page_visitors": {
					{Labels: [2]string{"/" + strings.Repeat("x", 2<<20), "human"}, Value: 1},
				},
			},
		})
	}
	if err := statefile.Write(cacheFile, statefile.File{SavedAt: time.Now(), State: engine.State{Units: units}}); err != nil {
		t.Fatal(err)
	}
	p := startExporter(t, keyEnv, append(exporterArgs(srv.URL(), "hostile"), "--cache.file="+cacheFile)...)
	if resp, _ := p.get(t, "/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("landing page: %d", resp.StatusCode)
	}
	eventually(t, 30*time.Second, "a refresh after the restore", func() string {
		if srv.CountRequests(mintlifytest.EndpointVisitors) == 0 {
			return "no visitors request sent"
		}
		return ""
	})
	_, body := p.get(t, "/metrics", nil)
	for _, bad := range []string{"xxxxxxxx", "e+308"} {
		if strings.Contains(string(body), bad) {
			t.Errorf("a series of the cache file no API answer could give is exported (%q)", bad)
		}
	}
	if strings.Count(string(body), `mintlify_visitors{project="hostile",traffic="human",window="1d"}`) > 1 {
		t.Error("a duplicate series of the cache file is exported")
	}
	p.stop(t)
	if !strings.Contains(p.stderr.String(), "dropped series of the cache file") {
		t.Errorf("the dropped series were not logged:\n%s", p.tail(8<<10))
	}
}
