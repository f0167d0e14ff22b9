package mintlifytest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxPromptChars is the fake's limit on a prompt, in Unicode code points.
// The real limit is not published.
const maxPromptChars = 10000

// serveGetJob answers GET /v2/agent/{projectId}/job/{id}.
func (s *Server) serveGetJob(rt route) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.findJob(rt.project, rt.job, s.now())
	if j == nil {
		return reply{status: http.StatusNotFound, body: errorJSON("Job not found")}
	}
	return reply{status: http.StatusOK, body: appendJob(nil, j)}
}

// serveSendMessage answers POST /v2/agent/{projectId}/job/{id}/message.
func (s *Server) serveSendMessage(r *http.Request, rt route, body []byte) reply {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.findJob(rt.project, rt.job, now)
	if j == nil {
		return reply{status: http.StatusNotFound, body: errorJSON("Job not found")}
	}
	prompt, problem := parsePrompt(r.Header.Get("Content-Type"), body)
	if problem != "" {
		return reply{status: http.StatusBadRequest, body: errorJSON(problem)}
	}
	if rep, ok := s.takeMessage(rt.project, now); !ok {
		return rep
	}
	j.messages = append(j.messages, prompt)
	s.setStatus(j, statusActive, now)
	return reply{status: http.StatusOK, body: appendJob(nil, j)}
}

// serveCreateJob answers POST /v2/agent/{projectId}/job: a new active job
// on the default repository that stays active until changed, or completes
// after WithCreatedJobsRunning's time.
func (s *Server) serveCreateJob(r *http.Request, rt route, body []byte) reply {
	now := s.now()
	prompt, problem := parsePrompt(r.Header.Get("Content-Type"), body)
	if problem != "" {
		return reply{status: http.StatusBadRequest, body: errorJSON(problem)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.projects[rt.project]; !ok {
		return reply{status: http.StatusNotFound, body: errorJSON("project not found")}
	}
	if rep, ok := s.takeMessage(rt.project, now); !ok {
		return rep
	}
	s.jobSeq++
	spec := JobSpec{ID: fmt.Sprintf("job_%08x", s.jobSeq), Model: defaultModel, Outcome: statusCompleted, CreatedAt: now, RunFor: s.createdRunFor}
	j := &job{spec: spec, repository: defaultRepository, messages: []string{prompt}}
	s.setStatus(j, statusActive, now)
	s.projects[rt.project].jobs[spec.ID] = j
	return reply{status: http.StatusCreated, body: appendJob(nil, j)}
}

// takeMessage spends one of the project's hourly create/send-message uses.
// The caller holds s.mu.
func (s *Server) takeMessage(projectID string, now time.Time) (reply, bool) {
	wait, ok := s.project(projectID).messages.take(now)
	if ok {
		return reply{}, true
	}
	return reply{
		status: http.StatusTooManyRequests,
		body:   errorJSON("Rate limit exceeded"),
		header: http.Header{"Retry-After": {strconv.FormatInt(retryAfterSeconds(wait), 10)}},
	}, false
}

// parsePrompt validates a {"prompt": string} request body and returns the
// prompt, or the problem to answer 400 with.
func parsePrompt(contentType string, body []byte) (string, string) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return "", "Content-Type must be application/json"
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&fields); err != nil || fields == nil || dec.More() {
		return "", "Invalid request body: expected a JSON object"
	}
	raw, ok := fields["prompt"]
	if !ok {
		return "", "prompt is required"
	}
	var prompt string
	if err := json.Unmarshal(raw, &prompt); err != nil {
		return "", "prompt must be a string"
	}
	if prompt == "" {
		return "", "prompt must contain at least 1 character"
	}
	if n := utf8.RuneCountInString(prompt); n > maxPromptChars {
		return "", fmt.Sprintf("prompt must contain at most %d characters", maxPromptChars)
	}
	return prompt, ""
}

// Paging of the deprecated v1 listing, as the API documents it.
const (
	listDefaultTake = 12
	listMaxTake     = 100
)

// parseListQuery reads skip (>= 0, default 0) and take (1..100, default 12)
// or returns the problem to answer 400 with.
func parseListQuery(q url.Values) (skip, take int, problem string) {
	skip, take = 0, listDefaultTake
	if v, ok := q["skip"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 {
			return 0, 0, "skip must be an integer greater than or equal to 0"
		}
		skip = n
	}
	if v, ok := q["take"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > listMaxTake {
			return 0, 0, fmt.Sprintf("take must be an integer from 1 to %d", listMaxTake)
		}
		take = n
	}
	return skip, take, ""
}

// serveListJobs answers the deprecated GET /v1/agent/{projectId}/jobs:
// every job that is not archived, newest first, paged by skip and take.
func (s *Server) serveListJobs(r *http.Request, rt route) reply {
	skip, take, problem := parseListQuery(r.URL.Query())
	if problem != "" {
		return reply{status: http.StatusBadRequest, body: errorJSON(problem)}
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[rt.project]
	if p == nil {
		return reply{status: http.StatusNotFound, body: errorJSON("project not found")}
	}
	jobs := make([]*job, 0, len(p.jobs))
	for _, j := range p.jobs {
		s.advance(j, now)
		if j.status != statusArchived {
			jobs = append(jobs, j)
		}
	}
	slices.SortFunc(jobs, func(a, b *job) int {
		if c := b.spec.CreatedAt.Compare(a.spec.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.spec.ID, b.spec.ID)
	})
	jobs = jobs[min(skip, len(jobs)):]
	jobs = jobs[:min(take, len(jobs))]
	b := []byte(`{"allSessions":[`)
	for i, j := range jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSession(b, rt.project, j)
	}
	return reply{status: http.StatusOK, body: append(b, "]}"...)}
}

// appendSession appends a job as a v1 session: active is not haulted, with
// haultReason "processing"; completed is haulted with "completed", or
// "interrupted" after InterruptJob; failed with JobSpec.HaultReason
// ("error" by default); any other status is haulted with the status as
// haultReason. haultReason is never null.
func appendSession(b []byte, projectID string, j *job) []byte {
	haulted, reason, msg := true, j.status, ""
	switch j.status {
	case statusActive:
		haulted, reason, msg = false, "processing", "Working on your request."
	case statusCompleted:
		msg = "No changes were needed."
		if j.prLink != nil {
			msg = "I opened a pull request with the changes."
		}
		if j.interrupted {
			reason, msg = "interrupted", "Stopped."
		}
	case statusFailed:
		reason, msg = "error", "The agent ran into an error and stopped."
		if j.spec.HaultReason != "" {
			reason = j.spec.HaultReason
		}
	}
	b = append(b, `{"sessionId":`...)
	if j.spec.SessionID != "" {
		b = appendString(b, j.spec.SessionID)
	} else {
		b = appendString(b, j.spec.ID)
	}
	b = append(b, `,"subdomain":`...)
	b = appendString(b, projectID)
	b = append(b, `,"branch":`...)
	b = appendString(b, j.spec.Ref)
	b = append(b, `,"haulted":`...)
	b = strconv.AppendBool(b, haulted)
	b = append(b, `,"haultReason":`...)
	b = appendString(b, reason)
	if j.prLink != nil { // a string in the schema: omitted, never null
		b = append(b, `,"pullRequestLink":`...)
		b = appendString(b, *j.prLink)
	}
	b = append(b, `,"messageToUser":`...)
	b = appendString(b, msg)
	b = append(b, `,"todos":[]`...)
	if !j.omit["createdAt"] {
		b = append(b, `,"createdAt":`...)
		if j.spec.NullCreatedAt {
			b = append(b, "null"...)
		} else {
			b = appendString(b, apiTime(j.spec.CreatedAt))
		}
	}
	return append(b, '}')
}
