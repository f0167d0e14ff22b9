package e2e

// --demo: the exporter serves synthetic data from its embedded fake and
// says so.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
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
	// The demo streams too: its events are counted per project, and
	// the writer's next object is read while it runs.
	for _, proj := range []string{"acme-docs", "acme-developers"} {
		if v := got[key("mintlify_up", "project", proj, "source", "stream")]; v != 1 {
			t.Errorf(`mintlify_up{source="stream"} for %s = %v, want 1`, proj, v)
		}
		if v := got[key("mintlify_stream_events_total", "project", proj, "event", "docs.content.view")]; v <= 0 {
			t.Errorf("no page view event counted for %s in demo mode", proj)
		}
	}
	if got[key("mintlify_stream_duplicates_dropped_total")] <= 0 || got[key("mintlify_stream_lines_refused_total", "reason", "malformed_line")] <= 0 {
		t.Error("the demo stream shows no dropped duplicate or refused line")
	}
	read := got[key("mintlify_stream_objects_read_total")]
	eventually(t, 30*time.Second, "the demo stream's next object read", func() string {
		_, fams := p.scrape(t)
		if n := series(fams)[key("mintlify_stream_objects_read_total")]; n <= read {
			return fmt.Sprintf("still %v objects", n)
		}
		return ""
	})
	_, landing := p.get(t, "/", nil)
	if !bytes.Contains(landing, []byte("DEMO MODE")) {
		t.Error("the landing page does not say the data is synthetic")
	}
	for _, want := range []string{"<h2>Event stream</h2>", "<td>demo-events</td>", "duplicates dropped", "malformed_line: "} {
		if !bytes.Contains(landing, []byte(want)) {
			t.Errorf("the landing page's stream section lacks %q", want)
		}
	}
	p.stop(t)
	logs := p.stderr.String()
	if !strings.Contains(logs, "DEMO MODE") || !strings.Contains(logs, "SYNTHETIC") {
		t.Errorf("no demo banner logged:\n%s", logs)
	}
	assertNoSecret(t, map[string]string{"stderr": logs, "landing page": string(landing)}, defaultKeyMark)
}
