package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// Source is one kind of analytics data: what a unit costs, how to fetch it
// and which series the answer makes. The Engine does everything else.
type Source interface {
	// Name is the "source" label and the --collector.<name> flag.
	Name() string
	// Families lists the families in exposition order, also labelled project and window.
	Families() []Family
	// Supports reports whether the source has a unit for window w.
	Supports(w Window) bool
	// Fetch reads one unit for r, every page or nothing; prevCost (the last
	// fetch's, 0 at first) lets a paged source fetch its pages concurrently.
	Fetch(ctx context.Context, u Unit, r client.DateRange, prevCost int) (*Result, error)
}

// MaxLabels is the most labels a family may have besides project and window.
const MaxLabels = exposition.MaxLabels

// Family describes one metric family of a source. All are gauges.
type Family struct {
	Name, Help string
	Labels     []string // at most MaxLabels, besides project and window
	// SiteWide marks a family of site-wide totals: the totals unit of a
	// Splitter's window exports it, the page walk the others.
	SiteWide bool
}

// Sample is one series of a family.
type Sample = exposition.Sample

// Result is what one successful fetch of a unit produced.
type Result struct {
	// Samples holds each family's series, in Families order.
	Samples [][]Sample
	Cost    int            // requests sent: the estimate of the next fetch
	Skipped map[string]int // malformed rows skipped, by reason
	// Summary describes the result for the landing page ("1234 paths, 1000 exported").
	Summary string
}

// Unit is one source, project and window: what the engine schedules.
type Unit struct {
	Source  string
	Project string
	Window  Window
}

// String names the unit in logs: "visitors/docs/7d".
func (u Unit) String() string { return u.Source + "/" + u.Project + "/" + u.Window.String() }

// Window is the Days calendar days in UTC ending today. A site window
// ("7d:site") exports only site-wide figures, one request per source.
type Window struct {
	Name string // the label value, such as "7d" (without ":site")
	Days int
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

// Range returns the dates the window covers at now, dateTo exclusive.
func (w Window) Range(now time.Time) client.DateRange { return client.LastNDays(now, w.Days) }
