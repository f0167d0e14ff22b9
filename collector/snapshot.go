package collector

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Window is a visitors window: the Days calendar days in UTC ending with
// today, today included.
type Window struct {
	// Name is the label value, such as "7d".
	Name string
	Days int
}

// MaxWindowDays is the longest window accepted.
const MaxWindowDays = 366

// ParseWindow parses a window such as "1d", "7d" or "30d".
func ParseWindow(s string) (Window, error) {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
	if !strings.HasSuffix(s, "d") || err != nil || n < 1 || n > MaxWindowDays || strconv.Itoa(n)+"d" != s {
		return Window{}, fmt.Errorf("invalid window %q: want a number of days from 1d to %dd, such as 7d", s, MaxWindowDays)
	}
	return Window{Name: s, Days: n}, nil
}

// Range returns the dates the window covers at now: dateFrom is today-(N-1)
// days and dateTo is tomorrow, exclusive.
func (w Window) Range(now time.Time) client.DateRange { return client.LastNDays(now, w.Days) }

// PathFilter selects and caps the paths exported for each project and window.
type PathFilter struct {
	// Include, when set, keeps only paths it matches (unanchored).
	Include *regexp.Regexp
	// Exclude, when set, drops paths it matches (unanchored).
	Exclude *regexp.Regexp
	// MaxPaths keeps the top MaxPaths paths by deduplicated total; 0 keeps all.
	MaxPaths int
}

// Snapshot is the immutable result of one successful refresh of one project
// and window, with its exposition rendered.
type Snapshot struct {
	Project string
	Window  string
	Range   client.DateRange
	Totals  client.Counts
	// Rows are the exported paths: valid UTF-8, unique, filtered and capped,
	// by deduplicated total descending then path.
	Rows []client.PathVisitors
	// Returned is the number of distinct paths the API returned.
	Returned int
	// Pages is the number of pages the walk fetched.
	Pages int
	// Completed is when the refresh ended; Duration how long it took.
	Completed time.Time
	Duration  time.Duration

	rendered [numFamilies]chunk
}

// SanitizePath returns a path usable as a label value: invalid UTF-8
// sequences become U+FFFD.
func SanitizePath(p string) string { return strings.ToValidUTF8(p, "\uFFFD") }

// NewSnapshot builds and renders the snapshot of a walk: paths are
// sanitized (two paths equal after sanitizing are merged, the first kept),
// filtered, ordered by deduplicated total and capped.
func NewSnapshot(project, window string, res *client.VisitorsResult, f PathFilter, completed time.Time, took time.Duration) *Snapshot {
	s := &Snapshot{
		Project: project, Window: window, Range: res.Range, Totals: res.Totals,
		Pages: res.Pages, Completed: completed, Duration: took,
	}
	seen := make(map[string]struct{}, len(res.Rows))
	rows := make([]client.PathVisitors, 0, len(res.Rows))
	for _, r := range res.Rows {
		r.Path = SanitizePath(r.Path)
		if _, dup := seen[r.Path]; dup {
			continue
		}
		seen[r.Path] = struct{}{}
		s.Returned++
		if f.Include != nil && !f.Include.MatchString(r.Path) {
			continue
		}
		if f.Exclude != nil && f.Exclude.MatchString(r.Path) {
			continue
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b client.PathVisitors) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	if f.MaxPaths > 0 && len(rows) > f.MaxPaths {
		rows = slices.Clone(rows[:f.MaxPaths]) // frees the rows cut
	}
	s.Rows = rows
	s.rendered = renderSnapshot(s)
	return s
}

// restoredSnapshot renders a snapshot loaded from persisted state.
func restoredSnapshot(s Snapshot) *Snapshot {
	s.rendered = renderSnapshot(&s)
	return &s
}
