package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"unicode/utf8"
)

// DefaultMaxPages is the default MaxPages of WalkOptions.
const DefaultMaxPages = 1000

// MaxEmptyPages is how many pages in a row with no row and hasMore true
// end a walk with ErrEmptyPages: the schema allows such a page (the walk
// follows it), but an API sending only those would spend a request a page
// up to MaxPages, and look like a success.
const MaxEmptyPages = 3

// ErrEmptyPages is wrapped by the error of a walk that got MaxEmptyPages
// empty pages in a row, each saying hasMore. It wraps ErrTooManyPages: the
// API has no end.
var ErrEmptyPages = fmt.Errorf("%d empty pages in a row, each saying hasMore (%w)", MaxEmptyPages, ErrTooManyPages)

// WalkOptions tunes a PathsWalk; zero fields take defaults (the largest
// page size).
type WalkOptions struct {
	PageSize int
	// MaxPages bounds the walk: more ends it with ErrTooManyPages.
	MaxPages int
	// Top, above 0, ends the walk once it holds Top rows Keep accepts, if
	// every row so far came in descending order of total (the API promises
	// no order: then every page is read). Ties keep the first listed.
	Top  int
	Keep func(path string) bool
}

// pagingDefaults checks a walk's page size (0 takes most), page bound (0
// takes defPages) and project id.
func pagingDefaults(size, maxPages *int, most, defPages int, project string) error {
	switch {
	case *size < 0 || *size > most:
		return fmt.Errorf("page size %d outside 1..%d", *size, most)
	case *maxPages < 0:
		return fmt.Errorf("negative MaxPages %d", *maxPages)
	}
	*size, *maxPages = cmp.Or(*size, most), cmp.Or(*maxPages, defPages)
	_, err := segment("project id", project)
	return err
}

// walkError wraps the error of a walk of ep with its project and range,
// and where in the walk it happened ("" or "page ...: ").
func walkError(ep Endpoint, project string, r DateRange, where string, err error) error {
	rng := "all dates"
	if r != (DateRange{}) {
		rng = r.String()
	}
	return fmt.Errorf("%s walk of project %q %s: %s%w", ep, project, rng, where, err)
}

// emptyPage counts in *empty the pages in a row that said hasMore without
// a row, skipped ones included: ErrEmptyPages at MaxEmptyPages.
func emptyPage(empty *int, isEmpty bool) error {
	if !isEmpty {
		*empty = 0
		return nil
	}
	if *empty++; *empty >= MaxEmptyPages {
		return ErrEmptyPages
	}
	return nil
}

// PageFunc fetches one page of an offset-paged export, as
// (*Client).PathsPage does: what a PathsWalk sends.
type PageFunc func(ctx context.Context, ep Endpoint, projectID string, q PathsQuery) (*PathsPage, error)

// PathsWalk is the one way an offset-paged export (visitors, views) is
// read, one request per page: its caller drives it one page at a time with
// Step, so it can send other requests between pages, or to the end with
// All. Repeated paths are dropped (Duplicates), malformed rows skipped.
// Not safe for concurrent use.
type PathsWalk struct {
	page PageFunc
	ep   Endpoint
	r    DateRange
	o    WalkOptions
	// p holds what the merged pages held; its Pages counts them, and the
	// page that ended the walk with ErrEmptyPages.
	p             WalkProgress
	seen          map[string]struct{}
	next          int // the page Step asks for
	done, stopped bool
}

// NewWalk starts a walk of ep (EndpointVisitors or EndpointViews) over r
// that fetches its pages with page; nothing is sent before the first Step.
func NewWalk(page PageFunc, ep Endpoint, projectID string, r DateRange, o WalkOptions) (*PathsWalk, error) {
	if ep != EndpointVisitors && ep != EndpointViews {
		return nil, fmt.Errorf("%s is not an offset-paged export", ep)
	}
	w := &PathsWalk{page: page, ep: ep, r: r, seen: make(map[string]struct{}), p: WalkProgress{Endpoint: ep.String(), Project: projectID}}
	if r != (DateRange{}) {
		w.p.From, w.p.To = r.From.String(), r.To.String()
	}
	if err := pagingDefaults(&o.PageSize, &o.MaxPages, MaxPageSize, DefaultMaxPages, projectID); err != nil {
		return nil, walkError(ep, projectID, r, "", err)
	}
	w.o, w.p.PageSize = o, o.PageSize
	return w, nil
}

// All sends the walk's requests to its end and returns its result: all or
// nothing, a failed page fails it.
func (w *PathsWalk) All(ctx context.Context) (*PathsResult, error) {
	for {
		done, err := w.Step(ctx)
		if err != nil {
			return nil, err
		}
		if done {
			return w.Result(), nil
		}
	}
}

// Step sends the walk's next request and reports whether the walk is
// complete. After an error nothing was merged: Step asks for the same page.
func (w *PathsWalk) Step(ctx context.Context) (done bool, err error) {
	i := w.next
	switch {
	case w.done:
		return true, nil
	case i >= w.o.MaxPages:
		return false, w.fail(i, fmt.Errorf("the API still has more after %d pages: %w", w.o.MaxPages, ErrTooManyPages))
	}
	p, err := w.page(ctx, w.ep, w.p.Project, PathsQuery{Range: w.r, Limit: w.o.PageSize, Offset: i * w.o.PageSize})
	if err != nil {
		return false, w.fail(i, err)
	}
	if w.done, err = w.add(i, p); err != nil {
		return false, err
	}
	w.next++
	return w.done, nil
}

// Sent is the number of pages merged so far.
func (w *PathsWalk) Sent() int { return w.p.Pages }

// Totals returns the site-wide totals of the first page, once it came.
func (w *PathsWalk) Totals() (Counts, bool) { return w.p.Totals, w.p.Pages > 0 }

// Result is the walk's result once Step reported it complete, else nil.
func (w *PathsWalk) Result() *PathsResult {
	if !w.done {
		return nil
	}
	p := &w.p
	return &PathsResult{Totals: p.Totals, Rows: p.Rows, Pages: p.Pages, Duplicates: p.Duplicates, Skipped: p.Skipped, Stopped: w.stopped}
}

func (w *PathsWalk) fail(i int, err error) error {
	return walkError(w.ep, w.p.Project, w.r, fmt.Sprintf("page at offset %d: ", i*w.o.PageSize), err)
}

// add merges page i and reports whether it was the last. An empty page
// saying hasMore is not, unless it is the MaxEmptyPages-th in a row: then
// the walk fails with ErrEmptyPages.
func (w *PathsWalk) add(i int, p *PathsPage) (last bool, err error) {
	if i == 0 {
		w.p.Totals = p.Totals
	}
	w.p.Pages++
	w.p.Skipped.merge(p.Skipped)
	for _, row := range p.Rows {
		_, dup := w.seen[row.Path]
		if w.o.Top > 0 { // follow the order of the rows
			if (i > 0 || len(w.p.Rows) > 0) && row.Total > w.p.Last {
				w.p.Unordered = true
			}
			w.p.Last = row.Total
			// A repeated path, or one that sanitizing might merge, is not counted.
			if !dup && utf8.ValidString(row.Path) && (w.o.Keep == nil || w.o.Keep(row.Path)) {
				w.p.Kept++
			}
		}
		if dup {
			w.p.Duplicates++
			continue
		}
		w.seen[row.Path] = struct{}{}
		w.p.Rows = append(w.p.Rows, row)
	}
	if p.HasMore && w.o.Top > 0 && !w.p.Unordered && w.p.Kept >= w.o.Top {
		w.stopped = true
		return true, nil
	}
	if err := emptyPage(&w.p.Empty, p.HasMore && len(p.Rows) == 0 && p.Skipped.Total() == 0); err != nil {
		return false, w.fail(i, err)
	}
	return !p.HasMore, nil
}

// WalkProgress is a snapshot of a PathsWalk's progress, to resume it after
// a restart with ResumeWalk: the pages merged so far (the next request's
// offset is Pages*PageSize) and what they held.
type WalkProgress struct {
	Endpoint   string       `json:"endpoint"` // "visitors" or "views"
	Project    string       `json:"project"`
	From       string       `json:"from,omitempty"` // the range's dates; empty for all dates
	To         string       `json:"to,omitempty"`
	PageSize   int          `json:"pageSize"`
	Pages      int          `json:"pages"`
	Totals     Counts       `json:"totals"`
	Rows       []PathCounts `json:"rows"`
	Duplicates int          `json:"duplicates,omitempty"`
	Skipped    Skipped      `json:"skipped,omitempty"`
	// For WalkOptions.Top: whether rows came unordered, the last row's
	// total, and how many rows Keep accepted.
	Unordered bool    `json:"unordered,omitempty"`
	Last      float64 `json:"last,omitempty"`
	Kept      int     `json:"kept,omitempty"`
	// Empty counts the empty pages in a row that said hasMore.
	Empty int `json:"empty,omitempty"`
}

// Range is the date range the walk reads.
func (p WalkProgress) Range() (DateRange, error) {
	if p.From == "" && p.To == "" {
		return DateRange{}, nil
	}
	from, err := ParseDate(p.From)
	to, err2 := ParseDate(p.To)
	if err := cmp.Or(err, err2); err != nil {
		return DateRange{}, err
	}
	if to.Time().Before(from.Time()) {
		return DateRange{}, fmt.Errorf("date range %s ends before it starts", DateRange{From: from, To: to})
	}
	return DateRange{From: from, To: to}, nil
}

// Progress returns the walk's progress once at least one page was merged
// and before it completed; ok is false otherwise. The rows are shared
// with the walk, which only appends: do not change them.
func (w *PathsWalk) Progress() (pr WalkProgress, ok bool) {
	if w.done || w.next == 0 {
		return WalkProgress{}, false
	}
	pr = w.p
	pr.Pages, pr.Rows, pr.Skipped = w.next, slices.Clip(pr.Rows), maps.Clone(pr.Skipped)
	return pr, true
}

// ResumeWalk continues the walk pr describes with options o, fetching its
// pages with page, once pr is one a walk with o could have reached: the
// same page size, fewer pages than MaxPages, at most a page size of rows a
// page, each path once, valid counts. Nothing is sent before Step.
func ResumeWalk(page PageFunc, pr WalkProgress, o WalkOptions) (*PathsWalk, error) {
	r, err := pr.Range()
	if err != nil {
		return nil, fmt.Errorf("resume a walk: %w", err)
	}
	ep, _ := EndpointNamed(pr.Endpoint) // NewWalk refuses another, and the zero Endpoint of an unknown name
	w, err := NewWalk(page, ep, pr.Project, r, o)
	if err != nil {
		return nil, fmt.Errorf("resume a walk: %w", err)
	}
	if err := w.checkProgress(pr); err != nil {
		return nil, walkError(ep, pr.Project, r, "", fmt.Errorf("cannot resume: %w", err))
	}
	pr.Rows, pr.Skipped = append(make([]PathCounts, 0, len(pr.Rows)), pr.Rows...), maps.Clone(pr.Skipped)
	w.p, w.next = pr, pr.Pages
	return w, nil
}

// checkProgress reports what makes pr a progress w could not reach, and
// marks pr's paths seen.
func (w *PathsWalk) checkProgress(pr WalkProgress) error {
	read := pr.Pages * w.o.PageSize // rows the pages could have held
	switch {
	case pr.PageSize != w.o.PageSize:
		return fmt.Errorf("page size %d, want %d", pr.PageSize, w.o.PageSize)
	case pr.Pages < 1 || pr.Pages >= w.o.MaxPages:
		return fmt.Errorf("%d pages read, outside 1..%d", pr.Pages, w.o.MaxPages-1)
	case len(pr.Rows)+pr.Duplicates+pr.Skipped.Total() > read || pr.Duplicates < 0:
		return fmt.Errorf("%d rows and %d duplicates in %d pages of %d", len(pr.Rows), pr.Duplicates, pr.Pages, w.o.PageSize)
	case pr.Kept < 0 || pr.Kept > len(pr.Rows) || pr.Empty < 0 || pr.Empty >= MaxEmptyPages:
		return fmt.Errorf("kept %d of %d rows, %d empty pages", pr.Kept, len(pr.Rows), pr.Empty)
	case !validCounts(pr.Totals) || math.IsNaN(pr.Last) || math.IsInf(pr.Last, 0):
		return errors.New("a total that is not a finite count")
	}
	for reason, n := range pr.Skipped {
		if n < 0 || !utf8.ValidString(reason) {
			return fmt.Errorf("skipped %d rows for %q", n, reason)
		}
	}
	for _, row := range pr.Rows {
		if _, dup := w.seen[row.Path]; dup {
			return fmt.Errorf("path %q twice", row.Path)
		}
		w.seen[row.Path] = struct{}{}
		if !validCounts(row.Counts) {
			return fmt.Errorf("path %q: a count that is not finite or is negative", row.Path)
		}
	}
	return nil
}

// validCounts reports whether every count of c is finite and not negative
// (NaN fails every comparison).
func validCounts(c Counts) bool {
	return !slices.ContainsFunc([]float64{c.Human, c.AI, c.Total}, func(v float64) bool { return !(v >= 0 && v <= math.MaxFloat64) })
}
