package client

import (
	"encoding/json"
	"slices"
	"time"
)

// JobStatus is an agent job's status; unknown values are kept and reported.
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
func (s JobStatus) Known() bool { return slices.Contains(JobStatuses, s) }

// Terminal reports whether a job in this status will not progress by
// itself. Unknown statuses are not terminal: they are polled on.
func (s JobStatus) Terminal() bool {
	return s == StatusCompleted || s == StatusArchived || s == StatusFailed
}

// JobSource is the repository an agent job works on.
type JobSource struct {
	Repository string `json:"repository"`
	// Ref is the branch or other reference, nil when absent.
	Ref *string `json:"ref"`
}

// Job is an agent job as get-agent-job and send-message return it. Every
// field may be absent (zero, ID excepted); unknown ones stay in Raw.
type Job struct {
	ID string `json:"id"`
	// Status is as sent: "" when absent, unknown values kept.
	Status JobStatus `json:"status"`
	Source JobSource `json:"source"`
	Model  string    `json:"model"`
	// PRLink is nil while the job is active or when no files changed.
	PRLink *string `json:"prLink"`
	// CreatedAt is zero when absent: test it with IsZero.
	CreatedAt  time.Time       `json:"createdAt"`
	ArchivedAt *time.Time      `json:"archivedAt"`
	Raw        json.RawMessage `json:"-"`
}

// The v1 listing's haultReason values, spelled as the API spells them.
const (
	HaultReasonCompleted            = "completed"
	HaultReasonGithubMissconfigured = "github_missconfigured" // the repository was unusable
	HaultReasonError                = "error"
	HaultReasonProcessing           = "processing"  // still running
	HaultReasonInterrupted          = "interrupted" // a person stopped the agent
)

// LegacySession is one session of the deprecated v1 listing, in its words:
// what the watcher reads of it.
type LegacySession struct {
	SessionID   string
	Haulted     bool
	HaultReason string
}

// Status maps a v1 session onto the v2 statuses. "interrupted" (a person
// stopped it) is completed: not failed, which alerts, and its pull request
// stands. Haulted without a reason is "haulted"; unknown reasons are kept.
// v1 cannot express archived.
func (s LegacySession) Status() JobStatus {
	if !s.Haulted || s.HaultReason == HaultReasonProcessing {
		return StatusActive
	}
	switch s.HaultReason {
	case HaultReasonCompleted, HaultReasonInterrupted:
		return StatusCompleted
	case HaultReasonGithubMissconfigured, HaultReasonError:
		return StatusFailed
	case "":
		return "haulted"
	}
	return JobStatus(s.HaultReason)
}
