package e2e

// --demo: the exporter serves synthetic data from its embedded fake and
// says so.

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	t.Parallel()
	p := startExporter(t, nil, "--demo", "--log.level=debug")
	_, fams := p.scrape(t)
	got := series(fams)
	for _, proj := range []string{"acme-docs", "acme-developers"} {
		for _, d := range windowDays {
			w := strconv.Itoa(d) + "d"
			for _, traffic := range []string{"human", "ai"} {
				k := key("mintlify_visitors", "project", proj, "window", w, "traffic", traffic)
				if v, ok := got[k]; !ok || v <= 0 {
					t.Errorf("%s = %v (present %v), want a positive count", k, v, ok)
				}
			}
		}
		if v := got[key("mintlify_up", "project", proj, "source", "visitors")]; v != 1 {
			t.Errorf("mintlify_up for %s = %v, want 1", proj, v)
		}
	}
	if n := len(fams["mintlify_page_visitors"].GetMetric()); n == 0 {
		t.Error("no page visitors in demo mode")
	}
	_, landing := p.get(t, "/", nil)
	if !bytes.Contains(landing, []byte("DEMO MODE")) {
		t.Error("the landing page does not say the data is synthetic")
	}
	p.stop(t)
	logs := p.stderr.String()
	if !strings.Contains(logs, "DEMO MODE") || !strings.Contains(logs, "SYNTHETIC") {
		t.Errorf("no demo banner logged:\n%s", logs)
	}
	assertNoSecret(t, map[string]string{"stderr": logs, "landing page": string(landing)}, defaultKeyMark)
}
