package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/exposition"
)

// Source is one kind of analytics data read from the API, such as unique
// visitors or search terms. A source says what one unit costs, how to fetch
// it and which series the answer makes; it does not schedule, budget, retry,
// cache, render or persist: the Engine does that, the same way for every
// source. Implementations live in package collector, one file each.
type Source interface {
	// Name is the source's value of the "source" label and of its
	// --collector.<name> flag.
	Name() string
	// Families lists the metric families the source exports, in the order
	// they are exposed. Every family carries the labels project and window
	// besides its own.
	Families() []Family
	// Supports reports whether the source has a unit for window w: a
	// source without site-wide figures has none for an Nd:site window.
	Supports(w Window) bool
	// Fetch reads one unit for the date range r: every page of it, all or
	// nothing. prevCost is the cost of the unit's last successful fetch (0
	// before the first), which a paged source may use to fetch the pages it
	// expects concurrently. The result's Samples follow Families.
	Fetch(ctx context.Context, u Unit, r client.DateRange, prevCost int) (*Result, error)
}

// MaxLabels is the most labels a family may have besides project and
// window.
const MaxLabels = exposition.MaxLabels

// Family describes one metric family of a source. All are gauges.
type Family struct {
	Name, Help string
	// Labels are the family's own labels, at most MaxLabels, besides
	// project and window.
	Labels []string
	// SiteWide marks a family of site-wide totals: for a source that
	// splits its windows (Splitter), the window's totals unit exports it
	// and its page walk exports the others.
	SiteWide bool
}

// Sample is one series of a family: its own label values, in the order of
// Family.Labels, and the value.
type Sample = exposition.Sample

// Result is what one successful fetch of a unit produced.
type Result struct {
	// Samples holds, for each of the source's families in order, its series
	// for this unit. A family with no series is left out of the exposition.
	Samples [][]Sample
	// Cost is the number of requests the fetch sent (pages, for a paged
	// source): the planner's estimate of the next fetch.
	Cost int
	// Skipped counts malformed rows the fetch skipped, by reason.
	Skipped map[string]int
	// Summary describes the result in a few words for the landing page,
	// such as "1234 paths, 1000 exported".
	Summary string
}

// Unit is what the engine schedules, refreshes all or nothing, and
// persists: one source, project and window.
type Unit struct {
	Source  string
	Project string
	Window  Window
}

// String names the unit in logs: "visitors/docs/7d".
func (u Unit) String() string { return u.Source + "/" + u.Project + "/" + u.Window.String() }

// Window is a date range relative to today: the Days calendar days in UTC
// ending with today, today included. A site window ("7d:site") exports only
// site-wide figures, at one request per source whatever the site's size.
type Window struct {
	// Name is the label value, such as "7d" (without ":site").
	Name string
	Days int
	// Site restricts the window to site-wide figures.
	Site bool
}

// MaxWindowDays is the longest window accepted.
const MaxWindowDays = 366

// ParseWindow parses a window such as "1d", "7d", "30d" or "30d:site".
func ParseWindow(s string) (Window, error) {
	days, site := strings.CutSuffix(s, ":site")
	n, err := strconv.Atoi(strings.TrimSuffix(days, "d"))
	if !strings.HasSuffix(days, "d") || err != nil || n < 1 || n > MaxWindowDays || strconv.Itoa(n)+"d" != days {
		return Window{}, fmt.Errorf("invalid window %q: want a number of days from 1d to %dd, such as 7d, optionally followed by :site (site-wide figures only), such as 30d:site", s, MaxWindowDays)
	}
	return Window{Name: days, Days: n, Site: site}, nil
}

// String is the window as written on the command line: "7d" or "7d:site".
func (w Window) String() string {
	if w.Site {
		return w.Name + ":site"
	}
	return w.Name
}

// Range returns the dates the window covers at now: dateFrom is today-(N-1)
// days and dateTo is tomorrow, exclusive.
func (w Window) Range(now time.Time) client.DateRange { return client.LastNDays(now, w.Days) }
