package mintlifytest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Job statuses the API documents.
const (
	statusActive    = "active"
	statusCompleted = "completed"
	statusArchived  = "archived"
	statusFailed    = "failed"
)

// Defaults of a JobSpec.
const (
	defaultRepository = "https://github.com/acme/docs"
	defaultModel      = "claude-sonnet-4"
)

// JobSpec describes an agent job for AddJob. The job's status follows the
// clock: an active job turns into Outcome RunFor after it became active.
type JobSpec struct {
	// ID is required.
	ID string
	// Repository is the repository URL; "org/repo" is taken as a GitHub
	// repository. Default https://github.com/acme/docs.
	Repository string
	// Ref is the branch; "" is sent as null.
	Ref string
	// Model defaults to "claude-sonnet-4".
	Model string
	// Status is the initial status, default "active". Any string is
	// accepted and sent as it is.
	Status string
	// RunFor is how long an active job runs before it reaches Outcome; 0
	// keeps it active until SetJobStatus or a message changes it.
	RunFor time.Duration
	// Outcome is "completed" (default) or "failed".
	Outcome string
	// NoChanges makes a completed job have no pull request (prLink null).
	NoChanges bool
	// CreatedAt defaults to the clock's now.
	CreatedAt time.Time
	// NullCreatedAt sends createdAt as null (the API's schema allows it).
	NullCreatedAt bool
	// Omit leaves fields out of the v2 job object, as the API's schema
	// allows for every field: "id", "status", "source", "source.repository",
	// "source.ref", "model", "prLink", "createdAt" and "archivedAt". An
	// omitted createdAt is left out of the v1 session too.
	Omit []string
	// SessionID is the job's sessionId in the v1 listing, ID when empty. The
	// API does not promise that the two are equal; set it to simulate a
	// listing whose ids get-agent-job does not know.
	SessionID string
	// HaultReason is the v1 listing's haultReason while the job is failed,
	// "error" when empty; "github_missconfigured" is the other documented
	// value.
	HaultReason string
}

// jobFields are the names JobSpec.Omit accepts.
var jobFields = map[string]bool{
	"id": true, "status": true, "source": true, "source.repository": true, "source.ref": true,
	"model": true, "prLink": true, "createdAt": true, "archivedAt": true,
}

// job is an agent job's state.
type job struct {
	spec        JobSpec
	repository  string
	status      string
	activeSince time.Time
	prLink      *string
	archivedAt  *time.Time
	messages    []string
	// interrupted: a person stopped the job (InterruptJob) and it has not
	// changed status since.
	interrupted bool
	omit        map[string]bool
}

// AddJob adds (or replaces) a job in a project, registering the project if
// needed. It panics when the spec is invalid.
func (s *Server) AddJob(projectID string, j JobSpec) {
	if j.ID == "" {
		panic("mintlifytest: AddJob: empty job ID")
	}
	switch j.Outcome {
	case "":
		j.Outcome = statusCompleted
	case statusCompleted, statusFailed:
	default:
		panic(fmt.Sprintf("mintlifytest: AddJob(%q): Outcome %q is neither completed nor failed", j.ID, j.Outcome))
	}
	omit := make(map[string]bool, len(j.Omit))
	for _, f := range j.Omit {
		if !jobFields[f] {
			panic(fmt.Sprintf("mintlifytest: AddJob(%q): Omit names %q, not a field of the job object", j.ID, f))
		}
		omit[f] = true
	}
	if j.Status == "" {
		j.Status = statusActive
	}
	if j.Model == "" {
		j.Model = defaultModel
	}
	now := s.now()
	if j.CreatedAt.IsZero() {
		j.CreatedAt = now
	}
	jb := &job{spec: j, repository: repositoryURL(j.Repository), activeSince: now, omit: omit}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.project(projectID).jobs[j.ID] = jb
	s.setStatus(jb, j.Status, now)
}

// repositoryURL turns a JobSpec.Repository into the full URL the API sends.
func repositoryURL(r string) string {
	switch {
	case r == "":
		return defaultRepository
	case strings.Contains(r, "://"):
		return r
	default:
		return "https://github.com/" + strings.Trim(r, "/")
	}
}

// SetJobStatus changes a job's status at once. "active" restarts the run
// (prLink null, RunFor counted from now); "completed" gives the job a pull
// request unless NoChanges; "failed" clears prLink; "archived" sets
// archivedAt. Any other string is stored and sent as it is. It panics for an
// unknown job.
func (s *Server) SetJobStatus(projectID, id, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setStatus(s.mustJob(projectID, id), status, s.now())
}

// InterruptJob stops a job as a person would: the v1 listing shows it
// haulted with haultReason "interrupted", and the v2 object reads
// "completed" (the v2 enum has no value for it; this is the fake's
// assumption), with the pull request it has, if any. A later status change
// or message clears the interruption. It panics for an unknown job.
func (s *Server) InterruptJob(projectID, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.mustJob(projectID, id)
	now := s.now()
	s.advance(j, now)
	j.status = statusCompleted
	j.interrupted = true
}

// RemoveJob deletes a job: GET then answers 404.
func (s *Server) RemoveJob(projectID, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.projects[projectID]; p != nil {
		delete(p.jobs, id)
	}
}

// Messages returns the prompts a job received through send-message (and
// create), in order; nil for an unknown job.
func (s *Server) Messages(projectID, id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[projectID]
	if p == nil || p.jobs[id] == nil {
		return nil
	}
	return append([]string(nil), p.jobs[id].messages...)
}

// mustJob returns a job or panics. The caller holds s.mu.
func (s *Server) mustJob(projectID, id string) *job {
	if p := s.projects[projectID]; p != nil && p.jobs[id] != nil {
		return p.jobs[id]
	}
	panic(fmt.Sprintf("mintlifytest: no job %q in project %q", id, projectID))
}

// findJob returns the job brought up to date with the clock, or nil. The
// caller holds s.mu.
func (s *Server) findJob(projectID, id string, now time.Time) *job {
	p := s.projects[projectID]
	if p == nil || p.jobs[id] == nil {
		return nil
	}
	j := p.jobs[id]
	s.advance(j, now)
	return j
}

// advance moves an active job to its outcome once it has run for RunFor.
// The caller holds s.mu.
func (s *Server) advance(j *job, now time.Time) {
	if j.status == statusActive && j.spec.RunFor > 0 && !now.Before(j.activeSince.Add(j.spec.RunFor)) {
		s.setStatus(j, j.spec.Outcome, j.activeSince.Add(j.spec.RunFor))
	}
}

// setStatus applies a status change at time at. The caller holds s.mu.
func (s *Server) setStatus(j *job, status string, at time.Time) {
	j.status = status
	j.interrupted = false
	switch status {
	case statusActive:
		j.activeSince = at
		j.prLink = nil
		j.archivedAt = nil
	case statusCompleted:
		if !j.spec.NoChanges && j.prLink == nil {
			s.prSeq++
			link := strings.TrimSuffix(strings.TrimSuffix(j.repository, "/"), ".git") + "/pull/" + strconv.Itoa(s.prSeq)
			j.prLink = &link
		}
		if j.spec.NoChanges {
			j.prLink = nil
		}
	case statusFailed:
		j.prLink = nil
	case statusArchived:
		if j.archivedAt == nil {
			t := at
			j.archivedAt = &t
		}
	}
}

// apiTime formats a time as the API does: RFC 3339 in UTC with milliseconds.
func apiTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// appendJob appends the job object of the v2 API, leaving out the fields
// the spec's Omit names.
func appendJob(b []byte, j *job) []byte {
	b = append(b, '{')
	sep := false
	field := func(name string) bool {
		if j.omit[name] {
			return false
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = appendString(b, name)
		b = append(b, ':')
		return true
	}
	if field("id") {
		b = appendString(b, j.spec.ID)
	}
	if field("status") {
		b = appendString(b, j.status)
	}
	if field("source") {
		b = append(b, '{')
		comma := false
		if !j.omit["source.repository"] {
			b = append(b, `"repository":`...)
			b = appendString(b, j.repository)
			comma = true
		}
		if !j.omit["source.ref"] {
			if comma {
				b = append(b, ',')
			}
			b = append(b, `"ref":`...)
			if j.spec.Ref == "" {
				b = append(b, "null"...)
			} else {
				b = appendString(b, j.spec.Ref)
			}
		}
		b = append(b, '}')
	}
	if field("model") {
		b = appendString(b, j.spec.Model)
	}
	if field("prLink") {
		b = appendNullableString(b, j.prLink)
	}
	if field("createdAt") {
		if j.spec.NullCreatedAt {
			b = append(b, "null"...)
		} else {
			b = appendString(b, apiTime(j.spec.CreatedAt))
		}
	}
	if field("archivedAt") {
		if j.archivedAt == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, apiTime(*j.archivedAt))
		}
	}
	return append(b, '}')
}
