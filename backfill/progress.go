package backfill

import (
	"fmt"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

func plural(n int, noun string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("%d %s", n, noun)
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printPlan prints what the run will do and cost, before any request.
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
		parts := make([]string, len(cfg.Labels))
		for i, l := range cfg.Labels {
			parts[i] = fmt.Sprintf("%s=%q", l.Name, l.Value)
		}
		fmt.Fprintf(w, "target labels: %s (as the live series get from their scrape; --backfill.label)\n", strings.Join(parts, ", "))
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
			plural(len(res.Failed), "fetch"), DefaultAttempts, holder, journaled, res.Fetches, again)
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

// clearLine returns to the start of the line and clears it.
const clearLine = "\r\x1b[K"

// left tells the time the rest needs: requests beyond the budget's room.
func (r *runner) left() string {
	remaining := len(r.todo) - r.done()
	per := 1.0
	if r.res.Fetched > 0 {
		per = float64(r.res.Requests) / float64(r.res.Fetched)
	}
	need := int(float64(remaining)*per+0.5) - r.cfg.Budget.Remaining()
	if d := BudgetTime(need, r.cfg.Budget.PerHour()); d >= time.Minute {
		return "about " + formatDuration(d) + " left"
	}
	return "less than a minute left"
}

// fetched records a finished (or failed) fetch; lastOfDay ends its day.
func (r *runner) fetched(f fetch, lastOfDay bool) {
	if r.cfg.Terminal {
		r.redraw("")
	} else if lastOfDay {
		fmt.Fprintf(r.cfg.Progress, "%s done: %d/%d fetches, %s, %s\n",
			f.day, r.done(), len(r.todo), plural(r.res.Requests, "request"), r.left())
	}
	if lastOfDay && !r.estimated && r.cfg.Pages && r.res.Fetched > 0 {
		r.estimated = true
		est := int(float64(len(r.todo))*float64(r.res.Requests)/float64(r.res.Fetched) + 0.5)
		r.note(fmt.Sprintf("estimate from the first day: about %s in all, about %s at %d requests per hour",
			plural(est, "request"), formatDuration(BudgetTime(est, r.cfg.Budget.PerHour())), r.cfg.Budget.PerHour()))
	}
}

func (r *runner) done() int { return r.res.Fetched + len(r.res.Failed) }

func (r *runner) redraw(suffix string) {
	const width = 24
	filled := r.done() * width / max(len(r.todo), 1)
	sent := ""
	if r.cfg.RemoteWrite != nil {
		sent = ", " + plural(r.res.Samples, "sample") + " sent"
	}
	fmt.Fprintf(r.cfg.Progress, clearLine+"[%s%s] %d/%d fetches, %s%s, %s%s",
		strings.Repeat("#", filled), strings.Repeat("-", width-filled), r.done(), len(r.todo),
		plural(r.res.Requests, "request"), sent, r.left(), suffix)
	r.drawn = true
}

func (r *runner) waiting(t time.Time, what string) {
	msg := fmt.Sprintf("waiting for %s until %s", what, t.UTC().Format("15:04:05 UTC"))
	if r.cfg.Terminal {
		r.redraw("; " + msg)
		return
	}
	if t.Sub(r.cfg.Now()) >= time.Minute && !t.Equal(r.waitNote) {
		r.waitNote = t
		fmt.Fprintln(r.cfg.Progress, msg)
	}
}

// note prints a message on its own line, keeping the bar below it.
func (r *runner) note(msg string) {
	if r.drawn {
		fmt.Fprint(r.cfg.Progress, clearLine)
	}
	fmt.Fprintln(r.cfg.Progress, msg)
	if r.cfg.Terminal {
		r.redraw("")
	}
}
