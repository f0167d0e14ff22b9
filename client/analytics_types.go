package client

import "time"

// Page size limits of the analytics endpoints, as the API publishes them.
// Each is the largest limit the endpoint accepts; the smallest is always 1.
const (
	// MaxPageSize is the largest limit of the offset-paged endpoints,
	// visitors and views (1..250).
	MaxPageSize = 250
	// MaxFeedbackLimit is the largest limit of feedback by page (1..100).
	// The endpoint has no offset or cursor: no more pages than this can be
	// read.
	MaxFeedbackLimit = 100
	// MaxSearchesLimit is the largest limit of searches (1..100).
	MaxSearchesLimit = 100
	// MaxConversationsPageSize is the largest limit of the assistant
	// conversations listing (1..1000).
	MaxConversationsPageSize = 1000
)

// Defaults of CursorWalkOptions.
const (
	DefaultConversationsPageSize = MaxConversationsPageSize
	DefaultConversationsMaxPages = 10
)

// Reasons a row was skipped, the keys of Skipped. They are short snake_case
// words fit for a Prometheus label value.
const (
	// SkipEmptyPath: a row whose path is "".
	SkipEmptyPath = "empty_path"
	// SkipBadCount: a count (or rate) that is negative, not a number, not
	// finite, null or missing.
	SkipBadCount = "bad_count"
	// SkipBadRow: a row that is not an object, or whose path, search term or
	// another field the row is read for is missing or of the wrong type.
	SkipBadRow = "bad_row"
	// SkipEmptyTerm: a search row whose searchQuery is "".
	SkipEmptyTerm = "empty_term"
)

// SkipReasons lists every skip reason in a stable order.
var SkipReasons = []string{SkipEmptyPath, SkipBadCount, SkipBadRow, SkipEmptyTerm}

// Skipped counts the malformed rows left out of an answer, by reason (one of
// SkipReasons). It is nil or empty when every row was kept.
type Skipped map[string]int

// Total is the number of rows skipped for any reason.
func (s Skipped) Total() int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

// add counts one skipped row, allocating the map on first use.
func (s *Skipped) add(reason string) {
	if *s == nil {
		*s = make(Skipped, 1)
	}
	(*s)[reason]++
}

// merge adds o's counts to s.
func (s *Skipped) merge(o Skipped) {
	for k, v := range o {
		if *s == nil {
			*s = make(Skipped, len(o))
		}
		(*s)[k] += v
	}
}

// Counts holds the counts of visitors or views split by traffic. The API
// publishes them as JSON numbers (not integers): any finite non-negative
// number is accepted.
//
// For unique visitors, Total is deduplicated across human and AI traffic, so
// it is not Human+AI, and unique counts are not additive across pages or
// days. For views (events), counts are additive and Total may exceed
// Human+AI.
type Counts struct {
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

// PathCounts is one row of the visitors or views export: a page and its
// counts.
type PathCounts struct {
	Path string `json:"path"`
	Counts
}

// PathsQuery holds the query parameters of the offset-paged exports
// (visitors and views). A zero Range sends neither dateFrom nor dateTo; a
// zero Limit sends none (the API's default is 50).
type PathsQuery struct {
	Range  DateRange
	Limit  int
	Offset int
}

// PathsPage is one page of the visitors or views export.
type PathsPage struct {
	// Totals are the site-wide counts of the whole date range, whatever
	// the page.
	Totals Counts
	// Rows are the page's well-formed rows, in the API's order.
	Rows []PathCounts
	// HasMore is true when more rows exist beyond this page.
	HasMore bool
	// Skipped counts the page's malformed rows, left out of Rows.
	Skipped Skipped
}

// PathsResult is a complete walk of every page of the visitors or views
// export for one date range.
type PathsResult struct {
	Range DateRange
	// Totals are the site-wide totals of the first page.
	Totals Counts
	// Rows holds each path once, in the order the API first returned it.
	Rows []PathCounts
	// Pages is the number of pages the walk used: every page up to and
	// including the first without more. Pages a concurrent walk fetched
	// beyond that one (the site shrank) are not counted, so Pages is the
	// right KnownPages for the next walk.
	Pages int
	// Duplicates counts rows dropped because their path was already seen on
	// an earlier page.
	Duplicates int
	// Skipped counts the malformed rows of every page used, by reason.
	Skipped Skipped
	// Stopped is set when the walk stopped before the last page: it held
	// WalkOptions.Top rows and every row had come in descending order of
	// total, so no later row could rank among them.
	Stopped bool
}

// CallerStats is the answer of assistant caller stats: assistant queries in
// the date range by caller. Counts are additive; Total may exceed the sum
// of the others.
type CallerStats struct {
	Web   float64 `json:"web"`
	API   float64 `json:"api"`
	Other float64 `json:"other"`
	Total float64 `json:"total"`
}

// PageFeedback is one row of feedback by page: feedback entries of one page
// in the date range. Total may exceed the sum of the others.
type PageFeedback struct {
	Path       string  `json:"path"`
	ThumbsUp   float64 `json:"thumbsUp"`
	ThumbsDown float64 `json:"thumbsDown"`
	Code       float64 `json:"code"`
	Total      float64 `json:"total"`
}

// FeedbackPage is the answer of feedback by page. The endpoint has no
// offset or cursor: HasMore true means more pages had feedback than the
// limit let through, and they cannot be read.
type FeedbackPage struct {
	Rows    []PageFeedback
	HasMore bool
	Skipped Skipped
}

// SearchTerm is one row of searches: one search term typed by the public.
// Query is text typed by anyone: never log it, and bound it before using it
// as a label value.
type SearchTerm struct {
	Query string
	// Hits is the number of searches for the term in the date range.
	Hits float64
	// CTR is the API's click-through rate, as it gives it (finite and not
	// negative; the API documents no upper bound).
	CTR float64
	// TopClickedPage is nil when the API sent null or nothing.
	TopClickedPage *string
	// LastSearchedAt is nil when the API sent null, nothing, or something
	// that is not an RFC 3339 date-time.
	LastSearchedAt *time.Time
}

// SearchesPage is one page of searches, rows ordered by hits descending.
type SearchesPage struct {
	Rows []SearchTerm
	// TotalSearches counts every search event in the date range, whatever
	// the limit: it is the site-wide figure.
	TotalSearches float64
	// NextCursor is the cursor of the next page, nil at the end.
	NextCursor *string
	Skipped    Skipped
}

// Values of ConversationKey.ResponseType and Resolution the API documents.
// Other values are kept as they come.
const (
	ResponseTypeAnswer             = "answer"
	ResponseTypeClarifyingQuestion = "clarifying_question"
	ResolutionAnswered             = "answered"
	ResolutionUnanswered           = "unanswered"
	// ResolutionUnknown stands for a null or absent resolutionStatus.
	ResolutionUnknown = "unknown"
)

// ConversationKey classifies one assistant conversation turn. An absent or
// null responseType is ResponseTypeAnswer (the API's documented default); a
// null, absent or empty resolutionStatus is ResolutionUnknown. Unknown
// values are kept as the API sent them.
type ConversationKey struct {
	ResponseType string
	Resolution   string
}

// ConversationsResult is a complete cursor walk of the assistant
// conversations for one date range. Only counts are kept: the text of
// queries, responses and sources is never decoded.
type ConversationsResult struct {
	Range DateRange
	// Counts holds the number of turns of each kind.
	Counts map[ConversationKey]int
	// Turns is the number of turns counted (the sum of Counts).
	Turns int
	// Pages is the number of pages (requests) the walk used.
	Pages int
	// Skipped counts malformed turns, left out of Counts.
	Skipped Skipped
	// Incomplete is true when the last page said hasMore but gave no
	// nextCursor: the turns after it could not be asked for.
	Incomplete bool
}

// CursorWalkOptions tunes WalkConversations. Zero fields take their
// defaults.
type CursorWalkOptions struct {
	// PageSize is the limit sent upstream, 1..MaxConversationsPageSize;
	// DefaultConversationsPageSize when 0.
	PageSize int
	// MaxPages bounds the walk: a walk that would need more pages fails
	// with ErrTooManyPages. DefaultConversationsMaxPages when 0.
	MaxPages int
}
