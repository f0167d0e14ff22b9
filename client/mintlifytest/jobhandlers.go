package mintlifytest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
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
// on the default repository that stays active until changed.
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
	spec := JobSpec{ID: fmt.Sprintf("job_%08x", s.jobSeq), Model: defaultModel, Outcome: statusCompleted, CreatedAt: now}
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

// serveListJobs answers the deprecated GET /v1/agent/{projectId}/jobs:
// every job that is not archived, newest first.
func (s *Server) serveListJobs(rt route) reply {
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
	b := []byte(`{"allSessions":[`)
	for i, j := range jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSession(b, rt.project, j)
	}
	return reply{status: http.StatusOK, body: append(b, "]}"...)}
}

// appendSession appends a job as a v1 session: active is not haulted;
// completed is haulted with haultReason "completed"; failed with "error";
// any other status is haulted with the status as haultReason.
func appendSession(b []byte, projectID string, j *job) []byte {
	haulted, reason, msg := true, j.status, ""
	switch j.status {
	case statusActive:
		haulted, reason, msg = false, "", "Working on your request."
	case statusCompleted:
		msg = "No changes were needed."
		if j.prLink != nil {
			msg = "I opened a pull request with the changes."
		}
	case statusFailed:
		reason, msg = "error", "The agent ran into an error and stopped."
	}
	b = append(b, `{"sessionId":`...)
	b = appendString(b, j.spec.ID)
	b = append(b, `,"subdomain":`...)
	b = appendString(b, projectID)
	b = append(b, `,"branch":`...)
	b = appendString(b, j.spec.Ref)
	b = append(b, `,"haulted":`...)
	b = strconv.AppendBool(b, haulted)
	b = append(b, `,"haultReason":`...)
	if haulted {
		b = appendString(b, reason)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"pullRequestLink":`...)
	b = appendNullableString(b, j.prLink)
	b = append(b, `,"messageToUser":`...)
	b = appendString(b, msg)
	b = append(b, `,"todos":[],"createdAt":`...)
	b = appendString(b, apiTime(j.spec.CreatedAt))
	return append(b, '}')
}
