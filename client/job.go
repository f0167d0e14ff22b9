package client

import (
	"encoding/json"
	"time"
)

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
