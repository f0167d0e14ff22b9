package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// DefaultBaseURL is the address of Mintlify's public REST API.
const DefaultBaseURL = "https://api.mintlify.com"

// Endpoint names one upstream operation. The names are fixed and short so
// they can be used as Prometheus label values; they are never URLs.
type Endpoint string

// The upstream operations the client knows. The six analytics endpoints
// share the organization's analytics rate limit.
const (
	// EndpointVisitors is GET /v1/analytics/{projectId}/visitors.
	EndpointVisitors Endpoint = "visitors"
	// EndpointViews is GET /v1/analytics/{projectId}/views.
	EndpointViews Endpoint = "views"
	// EndpointCallerStats is GET /v1/analytics/{projectId}/assistant/caller-stats.
	EndpointCallerStats Endpoint = "caller_stats"
	// EndpointFeedbackByPage is GET /v1/analytics/{projectId}/feedback/by-page.
	EndpointFeedbackByPage Endpoint = "feedback_by_page"
	// EndpointSearches is GET /v1/analytics/{projectId}/searches.
	EndpointSearches Endpoint = "searches"
	// EndpointConversations is GET /v1/analytics/{projectId}/assistant.
	EndpointConversations Endpoint = "conversations"
	// EndpointGetJob is GET /v2/agent/{projectId}/job/{id}.
	EndpointGetJob Endpoint = "get_job"
	// EndpointSendMessage is POST /v2/agent/{projectId}/job/{id}/message.
	EndpointSendMessage Endpoint = "send_message"
	// EndpointListJobs is the deprecated GET /v1/agent/{projectId}/jobs.
	EndpointListJobs Endpoint = "list_jobs"
	// EndpointCreateJob is POST /v2/agent/{projectId}/job.
	EndpointCreateJob Endpoint = "create_job"
)

// Endpoints lists every endpoint, in a stable order: the analytics ones
// first.
var Endpoints = []Endpoint{
	EndpointVisitors, EndpointViews, EndpointCallerStats, EndpointFeedbackByPage, EndpointSearches, EndpointConversations,
	EndpointGetJob, EndpointSendMessage, EndpointListJobs, EndpointCreateJob,
}

// Analytics reports whether the endpoint spends the organization's shared
// analytics rate limit (100 requests per hour upstream).
func (e Endpoint) Analytics() bool {
	switch e {
	case EndpointVisitors, EndpointViews, EndpointCallerStats, EndpointFeedbackByPage, EndpointSearches, EndpointConversations:
		return true
	}
	return false
}

// Attempt describes one HTTP attempt against the upstream API, successful or
// not. Retries are separate attempts.
type Attempt struct {
	Endpoint Endpoint
	// StatusCode is the HTTP status received, or 0 when no response arrived.
	StatusCode int
	// Err is the transport error when no response arrived (StatusCode 0),
	// or the error that cut reading the response body short.
	Err      error
	Duration time.Duration
}

// Code is the attempt's outcome as a label value: the HTTP status code, or
// "error" when no response arrived.
func (a Attempt) Code() string {
	if a.StatusCode == 0 {
		return "error"
	}
	return strconv.Itoa(a.StatusCode)
}

// Hooks lets the caller account for and observe every attempt without the
// client depending on Prometheus.
type Hooks struct {
	// Allow, when set, is called before every attempt, retries included,
	// with the call's context. It may wait (for a request budget, say) and
	// should return when ctx ends. A non-nil error stops the call before
	// anything is sent; the client returns that error (wrapped) to its
	// caller.
	Allow func(ctx context.Context, e Endpoint) error
	// Observe, when set, is called after every attempt that was sent.
	Observe func(Attempt)
}

// Date is a calendar day in UTC, sent upstream as YYYY-MM-DD.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the UTC calendar day of t.
func DateOf(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate parses a YYYY-MM-DD date.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("invalid date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// Time returns midnight UTC at the start of the day.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// AddDays returns the day n days after d (before it when n is negative).
func (d Date) AddDays(n int) Date { return DateOf(d.Time().AddDate(0, 0, n)) }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// String formats the day as YYYY-MM-DD, the form the API takes.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// DateRange is a half-open range of days: From is included, To is not,
// exactly as the API's dateFrom and dateTo parameters.
type DateRange struct {
	From Date
	To   Date
}

// LastNDays returns the n calendar days in UTC ending with the day of now,
// today included: From is today-(n-1) days and To is tomorrow (exclusive).
func LastNDays(now time.Time, n int) DateRange {
	today := DateOf(now)
	return DateRange{From: today.AddDays(-(n - 1)), To: today.AddDays(1)}
}

// Days is the number of days in the range.
func (r DateRange) Days() int { return int(r.To.Time().Sub(r.From.Time()).Hours() / 24) }

// String formats the range as "[from, to)".
func (r DateRange) String() string { return "[" + r.From.String() + ", " + r.To.String() + ")" }

// JobStatus is an agent job's status. Values outside the four documented
// ones are kept as they came so they can be reported, never dropped.
type JobStatus string

// The documented agent job statuses.
const (
	StatusActive    JobStatus = "active"
	StatusCompleted JobStatus = "completed"
	StatusArchived  JobStatus = "archived"
	StatusFailed    JobStatus = "failed"
)

// JobStatuses lists the documented statuses in a stable order.
var JobStatuses = []JobStatus{StatusActive, StatusCompleted, StatusArchived, StatusFailed}

// Known reports whether s is one of the four documented statuses.
func (s JobStatus) Known() bool {
	switch s {
	case StatusActive, StatusCompleted, StatusArchived, StatusFailed:
		return true
	}
	return false
}

// Terminal reports whether a job in this status will not progress by itself:
// completed, archived or failed. Unknown statuses are not terminal, so a
// client keeps polling them.
func (s JobStatus) Terminal() bool {
	return s == StatusCompleted || s == StatusArchived || s == StatusFailed
}

// JobSource is the repository an agent job works on.
type JobSource struct {
	// Repository is the full URL of the repository.
	Repository string `json:"repository"`
	// Ref is the branch or other reference; nil when the API sent null or
	// nothing.
	Ref *string `json:"ref"`
}

// Job is an agent job as returned by get-agent-job and send-message. The
// API's schema has no required field: any of them may be absent, and the
// client then leaves its zero value (ID excepted, which is the id asked
// for). Fields the client does not know are ignored; they stay in Raw.
type Job struct {
	ID string `json:"id"`
	// Status is as the API sent it: "" when absent or null, and kept as it
	// came when it is not one of the documented four.
	Status JobStatus `json:"status"`
	Source JobSource `json:"source"`
	// Model is "" when absent or null.
	Model string `json:"model"`
	// PRLink is the pull request URL, nil while the job is active or when no
	// files changed.
	PRLink *string `json:"prLink"`
	// CreatedAt is the zero time when the API sent no createdAt (absent or
	// null): test it with IsZero.
	CreatedAt  time.Time  `json:"createdAt"`
	ArchivedAt *time.Time `json:"archivedAt"`
	// Raw is the job object exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// The v1 listing's haultReason values, spelled as the API spells them.
const (
	// HaultReasonCompleted: the agent finished.
	HaultReasonCompleted = "completed"
	// HaultReasonGithubMissconfigured: the agent could not use the
	// repository.
	HaultReasonGithubMissconfigured = "github_missconfigured"
	// HaultReasonError: the agent met an error.
	HaultReasonError = "error"
	// HaultReasonProcessing: the agent is still running.
	HaultReasonProcessing = "processing"
	// HaultReasonInterrupted: a person stopped the agent.
	HaultReasonInterrupted = "interrupted"
)

// LegacySession is one element of the deprecated v1 job listing's
// allSessions array. Field names (including the API's spellings haulted and
// haultReason) are the API's own.
type LegacySession struct {
	SessionID       string          `json:"sessionId"`
	Subdomain       string          `json:"subdomain"`
	Branch          string          `json:"branch"`
	Haulted         bool            `json:"haulted"`
	HaultReason     string          `json:"haultReason"`
	PullRequestLink *string         `json:"pullRequestLink"`
	MessageToUser   string          `json:"messageToUser"`
	Todos           json.RawMessage `json:"todos"`
	// CreatedAt is the zero time when the API sent none.
	CreatedAt time.Time `json:"createdAt"`
}

// Status maps a v1 session onto the job statuses of the v2 API:
//
//   - not haulted, or haultReason "processing" (still running): active;
//   - "completed": completed;
//   - "github_missconfigured" and "error": failed;
//   - "interrupted" (a person stopped the agent): completed. The job ended
//     on purpose, not by an unrecoverable error, so it is not failed (which
//     alerts); it is not archived either (that is a later, separate act).
//     Like completed it is terminal and its pull request, if any, stands:
//     "the agent is done, check prLink";
//   - a haulted session without a reason: "haulted", a status of its own;
//   - any other haultReason: returned as it came, an unknown status to be
//     reported, never folded into a known one.
//
// The v1 listing cannot express archived.
func (s LegacySession) Status() JobStatus {
	if !s.Haulted {
		return StatusActive
	}
	switch s.HaultReason {
	case HaultReasonProcessing:
		return StatusActive
	case HaultReasonCompleted, HaultReasonInterrupted:
		return StatusCompleted
	case HaultReasonGithubMissconfigured, HaultReasonError:
		return StatusFailed
	case "":
		return "haulted"
	}
	return JobStatus(s.HaultReason)
}
