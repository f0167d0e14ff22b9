// Package landingpage serves the landing page: the exporter-toolkit page
// with a table of every unit's refresh state, cost and interval, of the
// watched agent jobs, and the event stream's progress. It never shows the API key, and links only to what the
// exporter serves (no /debug/pprof).
package landingpage

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// Config is what the page shows; its funcs are called at every request.
type Config struct {
	Version       string
	TelemetryPath string
	// JobsDescribe says what the job watcher watches, when Jobs is set.
	JobsDescribe string
	// Examples are commands to try, shown as code (the demo's).
	Examples []string

	Units func() []engine.UnitState
	// BudgetRemaining and BudgetPerHour describe the request budget.
	BudgetRemaining func() int
	BudgetPerHour   int
	// Reserve is the part of the budget left that due refreshes of data
	// may not spend (engine.Engine.Reserve); nil when there is nothing to say.
	Reserve func() int
	// Notes are shown before anything else (the demo banner).
	Notes []string
	// Jobs returns the watched agent jobs; nil when there is no job table.
	Jobs func() []jobs.Row
	// Remediation returns the webhook's keys; nil when it is off.
	Remediation func() []remediation.Row
	// Stream returns the event stream's progress, of which the page shows
	// counts and times only, nothing of an event's content; nil when it is
	// off. StreamPoll is its poll interval.
	Stream     func() stream.Status
	StreamPoll time.Duration
	Now        func() time.Time
}

// New returns the landing page handler.
func New(c Config) http.Handler {
	if c.Now == nil {
		c.Now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The heading is the notes when there are any; the template does not escape it.
		description := "Prometheus exporter for Mintlify documentation analytics (" + collector.DefaultNames() + ") and agent jobs"
		if len(c.Notes) > 0 {
			description = `<span class="demo">` + html.EscapeString(strings.Join(c.Notes, " ")) + `</span>`
		}
		extra, err := c.table()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		lp, err := web.NewLandingPage(web.LandingConfig{
			Name:        "Mintlify Exporter",
			Description: description,
			Version:     html.EscapeString(c.Version),
			Profiling:   "false", // no /debug/pprof here: no dead links
			Links: []web.LandingLinks{
				{Address: c.TelemetryPath, Text: "Metrics"},
				{Address: "-/healthy", Text: "Health"},
				{Address: "-/ready", Text: "Readiness", Description: "ready once every unit (source, project and window) has data, waits for the request budget or has been tried"},
			},
			ExtraHTML: extra,
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		lp.ServeHTTP(w, r)
	})
}

// extraHTML is the page's own part, after the toolkit's links. The template
// escapes every value.
var extraHTML = template.Must(template.New("extra").Parse(`
{{- if .Examples}}<h2>Try the agent commands</h2>
<p>In a shell (no key needed). Each command starts a synthetic API of its own with the same jobs, not this running demo's: the active job completes 20 seconds after the command starts.</p>
<pre>{{range .Examples}}{{.}}
{{end}}</pre>
{{end -}}
<style>` + stateStyle + `</style>
<h2>Analytics</h2>
<p class="summary">{{.Summary}}</p>
<p>Units are refreshed on the exporter's own timer, one request at a time, by one rule: when the hour has room, the next request goes to the unit whose data is worth most per request it still costs. No data is worth most (1d first, then longer windows; one-request units before page walks), otherwise the share of the window that changed since it was read; "next request" below is each unit's place in that order, and "interval" the time from its last data to the start the rule expected for its next refresh (at least the longest time it expects between two refreshes over the next six hours), set once per refresh. A page walk yields between pages to requests worth more. A unit that waits for the budget is not failing. A window's "totals" are one request whatever the size of the site; its "pages" are the walk of every page.</p>
<table>
<tr><th>source</th><th>project</th><th>window</th><th>dates</th><th class="detail">cost (requests)</th><th class="detail">interval</th><th>data</th><th>last success</th><th>state</th><th class="detail">next request</th></tr>
{{range .Units}}<tr><td>{{.Source}}</td><td>{{.Project}}</td><td>{{.Window}}</td><td class="nowrap">{{.Dates}}</td><td class="detail">{{.Cost}}</td><td class="detail">{{.Interval}}</td><td>{{.Data}}</td><td>{{.Last}}</td><td class="state-{{.State}}">{{.Text}}</td><td class="detail">{{.Rank}}</td></tr>
{{end}}</table>
{{if .Config.Jobs}}<h2>Agent jobs</h2>
<p>{{.JobsDescribe}}</p>
{{if .Jobs}}<table>
<tr><th>project</th><th>job</th><th>status</th><th>age</th><th>pull request</th></tr>
{{range .Jobs}}{{template "row" .}}
{{end}}</table>
{{else}}<p>No job is watched yet.</p>
{{end}}{{end -}}
{{if .Config.Remediation}}<h2>Remediation</h2>
<p>Alerts that POST /webhook/alertmanager turned into agent jobs, one key at a time (docs/remediation.md).</p>
{{if .Remediation}}<table>
<tr><th>key</th><th>rule</th><th>project</th><th>job</th><th>status</th><th>last action</th><th>pull request</th></tr>
{{range .Remediation}}{{template "row" .}}
{{end}}</table>
{{else}}<p>No alert has created a job yet.</p>
{{end}}{{end -}}
{{with .Stream}}<h2>Event stream</h2>
<p>Analytics events the organization streams to its S3 bucket (docs/stream.md), listed every {{.Interval}}.</p>
<table>
<tr><th>bucket</th><td>{{.Bucket}}</td></tr>
<tr><th>prefix</th><td>{{.Prefix}}</td></tr>
<tr><th>last poll</th><td>{{.LastPoll}}</td></tr>
<tr><th>newest object read</th><td>{{.LastObject}}</td></tr>
<tr><th>lag (newest event)</th><td>{{.Lag}}</td></tr>
<tr><th>events per minute (10 min)</th><td>{{.Rate}}</td></tr>
<tr><th>objects / lines / events read</th><td>{{.Objects}} / {{.Lines}} / {{.Events}}</td></tr>
<tr><th>duplicates dropped</th><td>{{.Duplicates}}</td></tr>
<tr><th>lines refused</th><td>{{.Refused}}</td></tr>
<tr><th>last error</th><td class="stream-{{.ErrorState}}">{{.Error}}</td></tr>
</table>
{{end -}}
{{define "row"}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}<td>
{{- if .Link}}<a href="{{.PR}}">{{.PR}}</a>{{else}}{{.PR}}{{end}}</td></tr>{{end}}`))

// extraData is what extraHTML shows, as text for people; Config's Jobs,
// Remediation and Stream are nil when their section is off.
type extraData struct {
	Config
	Summary     string
	Units       []unitRow
	Jobs        []row
	Remediation []row
	Stream      *streamRow
}

// streamRow is the stream's section, as text.
type streamRow struct {
	stream.Status
	Prefix, Interval, LastPoll, LastObject, Lag, Rate, Refused, Error string
	// ErrorState is ok or failing: the error cell's class (stream-*, not
	// state-*: those are the units' states).
	ErrorState string
}

func newStreamRow(v stream.Status, poll time.Duration, now time.Time) *streamRow {
	var refused []string
	for _, name := range slices.Sorted(maps.Keys(v.Refused)) {
		refused = append(refused, fmt.Sprintf("%s: %d", name, v.Refused[name]))
	}
	r := &streamRow{Status: v, Prefix: cmp.Or(v.Prefix, "(none)"), Interval: poll.String(), LastPoll: "not yet", LastObject: "none yet", Lag: "-",
		Rate: fmt.Sprintf("%.1f", v.EventsPerMinute), Refused: cmp.Or(strings.Join(refused, ", "), "none"), Error: "none", ErrorState: "ok"}
	if !v.LastPoll.IsZero() {
		r.LastPoll = fmt.Sprintf("%s (%s ago)", clock(v.LastPoll, now), now.Sub(v.LastPoll).Round(time.Second))
	}
	if !v.LastObjectTime.IsZero() {
		r.LastObject = fmt.Sprintf("%s (%s ago)", clock(v.LastObjectTime, now), now.Sub(v.LastObjectTime).Round(time.Second))
		r.Lag = v.Lag.Round(time.Second).String()
	}
	if v.Err != nil {
		r.Error, r.ErrorState = v.Err.Error(), "failing"
	}
	return r
}

// unitRow is a unit's row: its state, and what of it is shown as text.
type unitRow struct {
	engine.UnitState
	Window, Dates, Data, Last, Text, Rank string
}

// row is a row of the jobs' or the webhook's table: its cells, then its
// pull request ("-" when none), a link when it is a web address.
type row struct {
	Cells []string
	PR    string
	Link  bool
}

func newRow(cells []string, pr string) row {
	u, err := url.Parse(pr)
	return row{cells, cmp.Or(pr, "-"), err == nil && (u.Scheme == "https" || u.Scheme == "http")}
}

func (c Config) table() (string, error) {
	now := c.Now()
	units := c.Units()
	reserve := 0
	if c.Reserve != nil {
		reserve = c.Reserve()
	}
	d := extraData{Config: c, Summary: summaryLine(units, c.BudgetRemaining(), c.BudgetPerHour, reserve, now)}
	for _, st := range units {
		r := unitRow{UnitState: st, Window: windowText(st), Dates: "-", Data: "-", Last: "never", Text: stateText(st, now), Rank: cmp.Or(st.Rank, "-")}
		if !st.Completed.IsZero() {
			r.Dates, r.Data = st.Range.String(), st.Summary
			r.Last = fmt.Sprintf("%s ago", now.Sub(st.Completed).Round(time.Second))
		}
		d.Units = append(d.Units, r)
	}
	if c.Jobs != nil {
		for _, j := range c.Jobs() {
			status := cmp.Or(j.Status, "not read yet")
			switch {
			case j.NotFound:
				status += " (last read failed: not found (404): the job does not exist in this project)"
			case !j.Known:
				status += " (last read failed: not read yet)"
			}
			age := "-"
			if !j.CreatedAt.IsZero() {
				age = now.Sub(j.CreatedAt).Round(time.Second).String()
			}
			d.Jobs = append(d.Jobs, newRow([]string{j.Project, j.ID, status, age}, j.PRLink))
		}
	}
	if c.Stream != nil {
		d.Stream = newStreamRow(c.Stream(), c.StreamPoll, now)
	}
	if c.Remediation != nil {
		for _, r := range c.Remediation() {
			job, status := r.JobID, cmp.Or(r.Status, "not read yet")
			if job == "" {
				job, status = "-", "unknown: the create request got no answer"
			}
			if !r.Ended.IsZero() {
				status += ", ended " + clock(r.Ended, now)
			}
			d.Remediation = append(d.Remediation, newRow([]string{r.Key, r.Rule, r.Project, job, status, clock(r.LastAction, now)}, r.PRLink))
		}
	}
	var b strings.Builder
	if err := extraHTML.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// stateStyle colours the units' states; no script: the page is static HTML.
const stateStyle = `
td.state-ok { color: #1a7f37; }
td.state-waiting, td.state-pending { color: #9a6700; }
td.state-failing, td.stream-failing { color: #cf222e; font-weight: bold; }
td.state-refreshing { color: #0969da; }
p.summary { font-weight: bold; }
td.nowrap { white-space: nowrap; }
table { border-collapse: collapse; }
th, td { padding: 0.15em 0.5em; text-align: left; vertical-align: top; }
tr:nth-child(even) td { background: #f6f8fa; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
/* Narrow screens: the cost and interval columns give way to the state. */
@media (max-width: 900px) { .detail { display: none; } th, td { padding: 0.15em 0.3em; } }
span.demo { display: block; background: #fff3cd; border: 3px solid #d4a72c; padding: 0.6em; color: #4d2d00; }
`

// clock writes "17:05 UTC", with the date when it is not today's.
func clock(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	if t.Format(time.DateOnly) == now.Format(time.DateOnly) {
		return t.Format("15:04 UTC")
	}
	return t.Format("Jan 2 15:04 UTC")
}

// windowText names a unit's window: "7d", "7d:site", or "7d totals" and
// "7d pages" for the two parts of a split window.
func windowText(st engine.UnitState) string {
	if st.Part != "" {
		return st.Window.Name + " " + st.Part
	}
	return st.Window.String()
}

// stateText says what a unit is doing and what comes next.
func stateText(st engine.UnitState, now time.Time) string {
	switch st.State {
	case engine.StateRefreshing:
		if st.Progress != "" {
			return "refreshing: walk at " + st.Progress
		}
		return "refreshing"
	case engine.StateFailing:
		return fmt.Sprintf("failing: %s (next try about %s)", st.LastError, clock(st.Next, now))
	case engine.StateWaiting:
		return fmt.Sprintf("%s, expected about %s", cmp.Or(st.Deferred, "waiting for the request budget"), clock(st.Next, now))
	case engine.StatePending:
		return "not tried yet"
	}
	if st.Next.IsZero() {
		return "ok"
	}
	return "ok, next refresh about " + clock(st.Next, now)
}

// summaryLine counts the units by state, with the budget left and when the
// next refresh and all data are expected; when units wait for the budget
// while requests are left, it says why: the reserve is kept for units
// without data and the 1d units' new day at UTC midnight.
func summaryLine(units []engine.UnitState, left, perHour, reserve int, now time.Time) string {
	count := map[string]int{}
	var next, allBy time.Time
	heldBack := 0
	for _, u := range units {
		count[u.State]++
		if u.State == engine.StateWaiting && !strings.Contains(u.Deferred, "rate-limit pause") {
			heldBack++
		}
		if !u.Next.IsZero() && (next.IsZero() || u.Next.Before(next)) {
			next = u.Next
		}
		if u.Completed.IsZero() && u.State == engine.StateWaiting && u.Next.After(allBy) {
			allBy = u.Next // a unit without data
		}
	}
	s := fmt.Sprintf("%d units: %d ok, %d waiting for the budget, %d failing", len(units),
		count[engine.StateOK], count[engine.StateWaiting], count[engine.StateFailing])
	if n := count[engine.StateRefreshing] + count[engine.StatePending]; n > 0 {
		s += fmt.Sprintf(", %d refreshing or not tried yet", n)
	}
	s += fmt.Sprintf(". Requests left this hour: %d of %d.", left, perHour)
	if !next.IsZero() {
		s += " Next refresh about " + clock(next, now) + "."
	}
	if !allBy.IsZero() {
		s += " All data expected by about " + clock(allBy, now) + "."
	}
	if heldBack > 0 && left > 0 {
		s += fmt.Sprintf(" Why %d units wait with %d requests left: the last %d are kept for units without data and the 1d windows' new day at UTC midnight; waiting units go in the order of the \"next request\" column as requests leave the sliding hour.",
			heldBack, left, reserve)
	}
	return s
}
