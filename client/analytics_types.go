package client

// The largest limit each analytics endpoint accepts (the smallest is 1).
const (
	MaxPageSize              = 250 // visitors and views
	MaxFeedbackLimit         = 100
	MaxSearchesLimit         = 100
	MaxConversationsPageSize = 1000
)

// DefaultConversationsMaxPages is WalkConversations' page bound when 0 is given.
const DefaultConversationsMaxPages = 10

// Reasons a row was skipped (the keys of Skipped), fit for a label value.
const (
	SkipEmptyPath = "empty_path"
	SkipBadCount  = "bad_count"
	SkipBadRow    = "bad_row"
	SkipEmptyTerm = "empty_term" // searchQuery ""
)

// SkipReasons lists every skip reason in a stable order.
var SkipReasons = []string{SkipEmptyPath, SkipBadCount, SkipBadRow, SkipEmptyTerm}

// Skipped counts the malformed rows left out of an answer, by reason.
type Skipped map[string]int

// Total is the number of rows skipped for any reason.
func (s Skipped) Total() int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

func (s *Skipped) merge(o Skipped) {
	for k, v := range o {
		if *s == nil {
			*s = make(Skipped, len(o))
		}
		(*s)[k] += v
	}
}

// Counts holds visitors or views by traffic. A visitors Total is
// deduplicated (not Human+AI) and does not add up over pages or days.
type Counts struct {
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

// PathCounts is one row of the visitors or views export.
type PathCounts struct {
	Path string `json:"path"`
	Counts
}

// PathsQuery holds the query of visitors and views; zero fields are unsent.
type PathsQuery struct {
	Range  DateRange
	Limit  int
	Offset int
}

// PathsPage is one page of the visitors or views export.
type PathsPage struct {
	Totals  Counts // site-wide, whatever the page
	Rows    []PathCounts
	HasMore bool
	Skipped Skipped
}

// PathsResult is a walk of the visitors or views export for one range.
type PathsResult struct {
	Totals Counts
	Rows   []PathCounts // each path once, in the order first returned
	// Pages counts the pages read: the walk's requests.
	Pages      int
	Duplicates int // rows whose path an earlier page had
	Skipped    Skipped
	// Stopped: the walk ended early under WalkOptions.Top.
	Stopped bool
}

// CallerStats counts assistant queries by caller; Total may exceed the sum.
type CallerStats struct {
	Web   float64 `json:"web"`
	API   float64 `json:"api"`
	Other float64 `json:"other"`
	Total float64 `json:"total"`
}

// PageFeedback is one row of feedback by page; Total may exceed the sum.
type PageFeedback struct {
	Path       string  `json:"path"`
	ThumbsUp   float64 `json:"thumbsUp"`
	ThumbsDown float64 `json:"thumbsDown"`
	Code       float64 `json:"code"`
	Total      float64 `json:"total"`
}

// FeedbackPage is the answer of feedback by page; HasMore: pages beyond the
// limit had feedback, and cannot be read.
type FeedbackPage struct {
	Rows    []PageFeedback
	HasMore bool
	Skipped Skipped
}

// SearchTerm is one row of searches (its topClickedPage is checked, not
// kept). Query is typed by the public: never log it, and bound it before
// using it as a label value.
type SearchTerm struct {
	Query string
	Hits  float64
	CTR   float64 // as the API gives it: no documented upper bound
}

// SearchesPage is one page of searches, rows ordered by hits descending.
type SearchesPage struct {
	Rows          []SearchTerm
	TotalSearches float64 // site-wide, whatever the limit
	NextCursor    *string // nil at the end
	Skipped       Skipped
}

// Values of ConversationKey the API documents; others are kept as they come.
const (
	ResponseTypeAnswer             = "answer"
	ResponseTypeClarifyingQuestion = "clarifying_question"
	ResolutionAnswered             = "answered"
	ResolutionUnanswered           = "unanswered"
	ResolutionUnknown              = "unknown" // null, absent or empty
)

// ConversationKey classifies a conversation turn; an absent responseType is
// ResponseTypeAnswer.
type ConversationKey struct {
	ResponseType string
	Resolution   string
}

// ConversationsResult is a cursor walk of the assistant conversations for
// one range; no text is decoded.
type ConversationsResult struct {
	Counts  map[ConversationKey]int
	Turns   int // the sum of Counts
	Pages   int
	Skipped Skipped
}
