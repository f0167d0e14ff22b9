// Package landingpage serves the exporter's landing page: the
// exporter-toolkit page with links, plus a table of every unit (source,
// project and window) with its refresh state, cost and planned interval.
// It never shows the API key.
package landingpage

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// State supplies what the page shows; it is read at every request.
type State struct {
	// Units returns the state of every unit.
	Units func() []engine.UnitState
	// BudgetRemaining and BudgetPerHour describe the request budget.
	BudgetRemaining func() int
	BudgetPerHour   int
	// Notes are extra lines shown under the table (such as the demo banner).
	Notes []string
	Now   func() time.Time
}

// Config is the static part of the page.
type Config struct {
	Version       string
	TelemetryPath string
	JobsEnabled   bool
	JobsDescribe  string
}

// New returns the landing page handler.
func New(c Config, s State) http.Handler {
	if s.Now == nil {
		s.Now = time.Now
	}
	return &page{c: c, s: s}
}

type page struct {
	c Config
	s State
}

func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lp, err := web.NewLandingPage(web.LandingConfig{
		Name:        "Mintlify Exporter",
		Description: "Prometheus exporter for Mintlify documentation analytics (visitors, views, assistant, feedback, searches) and agent jobs",
		Version:     p.c.Version,
		Links: []web.LandingLinks{
			{Address: p.c.TelemetryPath, Text: "Metrics"},
			{Address: "-/healthy", Text: "Health"},
			{Address: "-/ready", Text: "Readiness", Description: "ready once every unit (source, project and window) has data"},
		},
		ExtraHTML: p.table(),
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	lp.ServeHTTP(w, r)
}

func (p *page) table() string {
	var b strings.Builder
	now := p.s.Now()
	fmt.Fprintf(&b, "<h2>Analytics</h2>\n<p>Analytics requests left this hour: %d of %d. Each unit is refreshed at its planned interval; when the budget binds, short and cheap windows are refreshed more often.</p>\n",
		p.s.BudgetRemaining(), p.s.BudgetPerHour)
	b.WriteString("<table>\n<tr><th>source</th><th>project</th><th>window</th><th>dates</th><th>cost (requests)</th><th>interval</th><th>data</th><th>last success</th><th>state</th></tr>\n")
	for _, st := range p.s.Units() {
		dates, summary, last := "-", "-", "never"
		if !st.Completed.IsZero() {
			dates = st.Range.String()
			summary = st.Summary
			last = fmt.Sprintf("%s ago", now.Sub(st.Completed).Round(time.Second))
		}
		state := "ok"
		switch {
		case st.Refreshing && st.Deferred != "":
			state = st.Deferred
		case st.Refreshing:
			state = "refreshing"
		case st.LastError != "":
			state = "failing: " + st.LastError
		case st.Deferred != "":
			state = "waiting: " + st.Deferred
		case st.Completed.IsZero():
			state = "no data yet"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(st.Source), html.EscapeString(st.Project), html.EscapeString(st.Window.String()), html.EscapeString(dates),
			st.Cost, html.EscapeString(st.Interval.String()), html.EscapeString(summary), html.EscapeString(last), html.EscapeString(state))
	}
	b.WriteString("</table>\n")
	if p.c.JobsEnabled {
		fmt.Fprintf(&b, "<h2>Agent jobs</h2>\n<p>%s</p>\n", html.EscapeString(p.c.JobsDescribe))
	}
	for _, n := range p.s.Notes {
		fmt.Fprintf(&b, "<p><strong>%s</strong></p>\n", html.EscapeString(n))
	}
	return b.String()
}
