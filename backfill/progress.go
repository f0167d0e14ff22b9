package backfill

import (
	"fmt"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// plural renders n and a noun, with an s when n is not 1.
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("%d %s", n, noun)
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// leftText renders the time left.
func leftText(d time.Duration) string {
	if d < time.Minute {
		return "less than a minute left"
	}
	return "about " + formatDuration(d) + " left"
}

// printPlan prints what the run will do and what it costs, before anything
// is sent.
func printPlan(cfg Config, res *Result, todo int) {
	w := cfg.Out
	kind := "site-wide figures (one request per source, project and day)"
	if cfg.Pages {
		kind = "site-wide and per-page series (a full walk per source, project and day)"
	}
	into := cfg.Output
	if cfg.RemoteWrite != nil {
		into = cfg.RemoteWrite.URL() + " by remote write, each day once fetched (journal " + cfg.Journal + ")"
	}
	fmt.Fprintf(w, "backfill %s..%s (%s) of %s into %s: %s, window=%q, each day stamped with its last second (UTC)\n",
		cfg.From, cfg.From.AddDays(res.Days-1), plural(res.Days, "day"), strings.Join(cfg.Projects, ", "), into, kind, Window)
	if len(cfg.Labels) > 0 {
		fmt.Fprintf(w, "target labels: %s (as the live series get from their scrape; --backfill.label)\n", formatLabels(cfg.Labels))
	} else {
		fmt.Fprintln(w, "target labels: none (--backfill.label)")
	}
	fmt.Fprintf(w, "sources: %s\n", strings.Join(res.Sources, ", "))
	if len(res.Skipped) > 0 {
		fmt.Fprintf(w, "skipped: %s (no site-wide figures; --backfill.pages adds them with their per-page series)\n", strings.Join(res.Skipped, ", "))
	}
	perHour := cfg.Budget.PerHour()
	resumed := ""
	if res.Resumed > 0 {
		resumed = fmt.Sprintf("; %d of %d fetches are already in the journal", res.Resumed, res.Fetches)
	}
	shape := fmt.Sprintf("%s × %s × %s", plural(res.Days, "day"), plural(len(res.Sources), "source"), plural(len(cfg.Projects), "project"))
	if cfg.Pages {
		fmt.Fprintf(w, "cost: at least %s (%s, more for sites of over 250 paths: one request per 250 paths); an estimate follows the first day%s\n",
			plural(todo, "request"), shape, resumed)
		fmt.Fprintf(w, "time: at least %s at %d requests per hour\n", formatDuration(BudgetTime(todo, perHour)), perHour)
	} else {
		fmt.Fprintf(w, "cost: %s (%s)%s\n", plural(todo, "request"), shape, resumed)
		if todo <= cfg.Budget.Remaining() {
			fmt.Fprintf(w, "time: no waiting: the requests fit in the hour's budget of %d\n", perHour)
		} else {
			fmt.Fprintf(w, "time: about %s at %d requests per hour\n", formatDuration(BudgetTime(todo, perHour)), perHour)
		}
	}
	fmt.Fprintf(w, "budget: --mintlify.requests-per-hour=%d; beside a live exporter the two budgets must add up to %d or less (the API's limit per organization)\n", perHour, client.AnalyticsRequestsPerHour)
	if cfg.DryRun {
		fmt.Fprintln(w, "dry run: nothing sent")
	}
}

// printReport prints how the run ended and what to do next.
func printReport(cfg Config, res *Result, journaled int, runErr error) {
	w := cfg.Out
	again := "run again with the same arguments and --resume: no finished day is asked again"
	holder := cfg.Output
	if rw := cfg.RemoteWrite; rw != nil {
		again = "run again with the same arguments and --resume: no finished day is asked or sent again"
		holder = "the journal " + cfg.Journal
		if res.WriteRequests > 0 {
			fmt.Fprintf(w, "sent %s to %s in %s\n", plural(res.Samples, "sample"), rw.URL(), plural(res.WriteRequests, "request"))
		}
	}
	switch {
	case res.Interrupted:
		fmt.Fprintf(w, "interrupted after %d of %d fetches; %s holds them; %s\n", journaled, res.Fetches, holder, again)
	case runErr != nil:
		fmt.Fprintf(w, "stopped after %d of %d fetches; %s holds them\n", journaled, res.Fetches, holder)
	case len(res.Failed) > 0:
		fmt.Fprintf(w, "%s failed after %d attempts each; %s holds the other %d of %d; %s:\n",
			plural(len(res.Failed), "fetch"), cfg.Attempts, holder, journaled, res.Fetches, again)
		for _, f := range res.Failed {
			fmt.Fprintf(w, "  %s %s %s: %v\n", f.Day, f.Source, f.Project, f.Err)
		}
	case cfg.RemoteWrite != nil:
		fmt.Fprintf(w, "done: %s, %s sent by this run; every day is in %s\n", plural(res.Fetches, "fetch"), plural(res.Requests, "request"), cfg.RemoteWrite.URL())
	default:
		fmt.Fprintf(w, "done: %s, %s sent by this run; wrote %s\n", plural(res.Fetches, "fetch"), plural(res.Requests, "request"), cfg.Output)
		fmt.Fprintf(w, "load it: promtool tsdb create-blocks-from openmetrics %s DIR (then move DIR's blocks into Prometheus' --storage.tsdb.path)\n", cfg.Output)
	}
}

// formatLabels renders labels as name="value", ...
func formatLabels(labels []Label) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = fmt.Sprintf("%s=%q", l.Name, l.Value)
	}
	return strings.Join(parts, ", ")
}

// clearLine returns to the start of the line and clears it.
const clearLine = "\r\x1b[K"

// progress shows the run's progress: on a terminal one bar line rewritten
// in place, otherwise one line per day.
type progress struct {
	cfg      Config
	res      *Result
	total    int // fetches this run does
	done     int
	daysDone int
	firstDay bool
	drawn    bool
	waitNote time.Time // the wait last reported on a non-terminal
}

// left estimates the time the remaining fetches need: their requests
// beyond the budget's current room, at its rate.
func (p *progress) left() time.Duration {
	remaining := p.total - p.done
	per := 1.0
	if p.done > 0 && p.res.Fetched > 0 {
		per = float64(p.res.Requests) / float64(p.res.Fetched)
	}
	need := int(float64(remaining)*per+0.5) - p.cfg.Budget.Remaining()
	return BudgetTime(need, p.cfg.Budget.PerHour())
}

// fetched records a finished (or failed) fetch; lastOfDay ends its day.
func (p *progress) fetched(f fetch, lastOfDay bool) {
	p.done++
	if lastOfDay {
		p.daysDone++
	}
	if p.cfg.Terminal {
		p.redraw()
	} else if lastOfDay {
		fmt.Fprintf(p.cfg.Progress, "%s done: %d/%d fetches, %s, %s\n",
			f.day, p.done, p.total, plural(p.res.Requests, "request"), leftText(p.left()))
	}
	if lastOfDay && p.firstDay && p.cfg.Pages && p.res.Fetched > 0 {
		p.firstDay = false
		est := int(float64(p.total)*float64(p.res.Requests)/float64(p.res.Fetched) + 0.5)
		p.note(fmt.Sprintf("estimate from the first day: about %s in all, about %s at %d requests per hour",
			plural(est, "request"), formatDuration(BudgetTime(est, p.cfg.Budget.PerHour())), p.cfg.Budget.PerHour()))
	}
}

// line is the terminal bar.
func (p *progress) line() string {
	const width = 24
	filled := 0
	if p.total > 0 {
		filled = p.done * width / p.total
	}
	sent := ""
	if p.cfg.RemoteWrite != nil {
		sent = ", " + plural(p.res.Samples, "sample") + " sent"
	}
	return fmt.Sprintf("[%s%s] %d/%d fetches, %s%s, %s",
		strings.Repeat("#", filled), strings.Repeat("-", width-filled), p.done, p.total,
		plural(p.res.Requests, "request"), sent, leftText(p.left()))
}

// sent records a request the receiver accepted: the samples of the days
// from..to.
func (p *progress) sent(from, to string, samples int) {
	if p.cfg.Terminal {
		p.redraw()
		return
	}
	days := from
	if to != from {
		days += ".." + to
	}
	fmt.Fprintf(p.cfg.Progress, "%s sent: %s to %s (%s in all)\n", days, plural(samples, "sample"), p.cfg.RemoteWrite.URL(), plural(p.res.Samples, "sample"))
}

func (p *progress) redraw() {
	fmt.Fprint(p.cfg.Progress, clearLine+p.line())
	p.drawn = true
}

// waiting tells that the run waits until t for what.
func (p *progress) waiting(t time.Time, what string) {
	msg := fmt.Sprintf("waiting for %s until %s", what, t.UTC().Format("15:04:05 UTC"))
	if p.cfg.Terminal {
		fmt.Fprint(p.cfg.Progress, clearLine+p.line()+"; "+msg)
		p.drawn = true
		return
	}
	if t.Sub(p.cfg.Now()) >= time.Minute && !t.Equal(p.waitNote) {
		p.waitNote = t
		fmt.Fprintln(p.cfg.Progress, msg)
	}
}

// note prints a message on its own line, keeping the bar below it.
func (p *progress) note(msg string) {
	if p.drawn {
		fmt.Fprint(p.cfg.Progress, clearLine)
	}
	fmt.Fprintln(p.cfg.Progress, msg)
	if p.cfg.Terminal {
		p.redraw()
	}
}

// finish ends the bar line.
func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.cfg.Progress)
		p.drawn = false
	}
}
