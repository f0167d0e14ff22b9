// Package landingpage serves the exporter's landing page: the
// exporter-toolkit page with links, plus a table of every project and
// window with its refresh state. It never shows the API key.
package landingpage

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// State supplies what the page shows; it is read at every request.
type State struct {
	// Visitors returns the state of every project and window.
	Visitors func() []collector.WalkState
	// Interval returns the refresh interval currently planned.
	Interval func() time.Duration
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
		Description: "Prometheus exporter for Mintlify documentation analytics (unique visitors, human and AI) and agent jobs",
		Version:     p.c.Version,
		Links: []web.LandingLinks{
			{Address: p.c.TelemetryPath, Text: "Metrics"},
			{Address: "-/healthy", Text: "Health"},
			{Address: "-/ready", Text: "Readiness", Description: "ready once every project and window has data"},
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
	fmt.Fprintf(&b, "<h2>Visitors</h2>\n<p>Refresh interval: %s. Analytics requests left this hour: %d of %d.</p>\n",
		html.EscapeString(p.s.Interval().String()), p.s.BudgetRemaining(), p.s.BudgetPerHour)
	b.WriteString("<table>\n<tr><th>project</th><th>window</th><th>dates</th><th>paths (exported)</th><th>pages</th><th>last success</th><th>state</th></tr>\n")
	for _, st := range p.s.Visitors() {
		dates, paths, pages, last := "-", "-", "-", "never"
		if s := st.Snapshot; s != nil {
			dates = s.Range.String()
			paths = fmt.Sprintf("%d (%d)", s.Returned, len(s.Rows))
			pages = fmt.Sprint(s.Pages)
			last = fmt.Sprintf("%s ago", now.Sub(s.Completed).Round(time.Second))
		}
		state := "ok"
		switch {
		case st.Refreshing:
			state = "refreshing"
		case st.LastError != "":
			state = "failing: " + st.LastError
		case st.Deferred != "":
			state = "waiting: " + st.Deferred
		case st.Snapshot == nil:
			state = "no data yet"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(st.Project), html.EscapeString(st.Window), html.EscapeString(dates),
			paths, pages, html.EscapeString(last), html.EscapeString(state))
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
