package landingpage

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// TestStreamSection: with the stream on, the page shows its progress as
// text, escaped, and its error marked failing; without it, no section.
func TestStreamSection(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	view := stream.Status{Bucket: "acme-events", Prefix: "mintlify/",
		LastPoll: now.Add(-12 * time.Second), LastObjectTime: now.Add(-75 * time.Second), Lag: 95 * time.Second, EventsPerMinute: 41.25,
		Objects: 12, Lines: 3400, Events: 3390, Duplicates: 7,
		Refused: map[string]int64{"malformed_line": 2, "oversized_line": 1},
		Err:     errors.New(`access denied: the AWS credentials may not list objects under prefix "mintlify/" of --stream.s3.bucket=acme-events <b>`)}
	state := Config{TelemetryPath: "/metrics", Units: func() []engine.UnitState { return nil }, BudgetRemaining: func() int { return 90 }, BudgetPerHour: 90,
		Now: func() time.Time { return now }}
	page := get(t, New(state))
	if strings.Contains(page, "Event stream") {
		t.Error("a page without the stream shows its section")
	}
	state.Stream, state.StreamPoll = func() stream.Status { return view }, 30*time.Second
	page = get(t, New(state))
	for _, want := range []string{
		"<h2>Event stream</h2>", "listed every 30s",
		"<tr><th>bucket</th><td>acme-events</td></tr>",
		"<tr><th>prefix</th><td>mintlify/</td></tr>",
		"<tr><th>last poll</th><td>11:59 UTC (12s ago)</td></tr>",
		"<tr><th>newest object read</th><td>11:58 UTC (1m15s ago)</td></tr>",
		"<tr><th>lag (newest event)</th><td>1m35s</td></tr>",
		"<tr><th>events per minute (10 min)</th><td>41.2</td></tr>",
		"<tr><th>objects / lines / events read</th><td>12 / 3400 / 3390</td></tr>",
		"<tr><th>duplicates dropped</th><td>7</td></tr>",
		"<tr><th>lines refused</th><td>malformed_line: 2, oversized_line: 1</td></tr>",
		`<td class="stream-failing">access denied: the AWS credentials may not list objects under prefix &#34;mintlify/&#34; of --stream.s3.bucket=acme-events &lt;b&gt;</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	state.Stream, state.StreamPoll = func() stream.Status { return stream.Status{Bucket: "b"} }, time.Second
	page = get(t, New(state))
	for _, want := range []string{"<td>(none)</td>", "<td>not yet</td>", "<td>none yet</td>", `<td class="stream-ok">none</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("a stream before its first poll: page lacks %q", want)
		}
	}
}
