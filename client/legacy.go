package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Paging of the deprecated v1 listing: skip >= 0 (default 0) and take
// 1..100 (default 12). The API sends no hasMore: a page shorter than take
// is the last.
const (
	// ListJobsMaxTake is the largest take the API accepts, and the page
	// size WalkJobsV1 uses unless told otherwise.
	ListJobsMaxTake = 100
	// DefaultListJobsMaxPages bounds a walk of the listing: 100 pages of
	// 100 sessions.
	DefaultListJobsMaxPages = 100
)

// ListJobsOptions tunes WalkJobsV1. The zero value is right for the real
// API.
type ListJobsOptions struct {
	// Take is the page size, 1..ListJobsMaxTake; ListJobsMaxTake when 0.
	Take int
	// MaxPages bounds the walk: a listing still full after MaxPages pages
	// ends it with ErrTooManyPages. DefaultListJobsMaxPages when 0.
	MaxPages int
}

// ListJobsV1 lists every agent session of a project through the
// deprecated GET /v1/agent/{projectId}/jobs, the only way to discover jobs
// without knowing their ids: WalkJobsV1 with the default options. Map each
// session with LegacySession.Status.
func (c *Client) ListJobsV1(ctx context.Context, projectID string) ([]LegacySession, error) {
	return c.WalkJobsV1(ctx, projectID, ListJobsOptions{})
}

// WalkJobsV1 reads every page of the deprecated v1 listing: skip=0,
// take=opts.Take, then skip += take until a page comes back shorter than
// take (the API sends no hasMore). A session listed twice (the listing is newest first, so a job created during the
// walk shifts the rest by one) is kept once, at its first place. Any failed
// page fails the whole walk. The result is never nil on success.
func (c *Client) WalkJobsV1(ctx context.Context, projectID string, opts ListJobsOptions) ([]LegacySession, error) {
	take, maxPages := opts.Take, opts.MaxPages
	switch {
	case take == 0:
		take = ListJobsMaxTake
	case take < 1 || take > ListJobsMaxTake:
		return nil, fmt.Errorf("%s: page size (take) %d outside 1..%d", EndpointListJobs, take, ListJobsMaxTake)
	}
	switch {
	case maxPages == 0:
		maxPages = DefaultListJobsMaxPages
	case maxPages < 0:
		return nil, fmt.Errorf("%s: negative MaxPages %d", EndpointListJobs, maxPages)
	}
	out := []LegacySession{}
	seen := make(map[string]bool)
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("%s: %w: still %d sessions on page %d of %d; the listing is larger than any sane project or the server ignores skip",
				EndpointListJobs, ErrTooManyPages, take, maxPages, maxPages)
		}
		sessions, err := c.ListJobsV1Page(ctx, projectID, page*take, take)
		if err != nil {
			return nil, err
		}
		for _, s := range sessions {
			if !seen[s.SessionID] {
				seen[s.SessionID] = true
				out = append(out, s)
			}
		}
		if len(sessions) < take {
			return out, nil
		}
	}
}

// ListJobsV1Page reads one page of the deprecated v1 listing:
// GET /v1/agent/{projectId}/jobs?skip=skip&take=take, with skip >= 0 and
// take 1..ListJobsMaxTake.
func (c *Client) ListJobsV1Page(ctx context.Context, projectID string, skip, take int) ([]LegacySession, error) {
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointListJobs, err)
	}
	if skip < 0 || take < 1 || take > ListJobsMaxTake {
		return nil, fmt.Errorf("%s: skip %d, take %d: want skip >= 0 and take 1..%d", EndpointListJobs, skip, take, ListJobsMaxTake)
	}
	q := url.Values{"skip": {strconv.Itoa(skip)}, "take": {strconv.Itoa(take)}}
	res, err := c.do(ctx, &call{endpoint: EndpointListJobs, method: http.MethodGet, path: "/v1/agent/" + p + "/jobs", query: q})
	if err != nil {
		return nil, err
	}
	s, err := decodeSessions(res.body)
	return s, err
}

// decodeSessions decodes the v1 listing. allSessions is required, and each
// session's sessionId and haulted; the other fields may be absent or null
// but must have their types when present. The result is never nil.
func decodeSessions(body []byte) ([]LegacySession, error) {
	const ep = EndpointListJobs
	var root struct {
		AllSessions json.RawMessage `json:"allSessions"`
	}
	if err := decodePage(ep, body, &root, "", nil); err != nil {
		return nil, err
	}
	elems, err := decodeArray(ep, "allSessions", root.AllSessions)
	if err != nil {
		return nil, err
	}
	out := make([]LegacySession, 0, len(elems))
	for i, raw := range elems {
		var w struct {
			SessionID       wireStr         `json:"sessionId"`
			Haulted         wireBool        `json:"haulted"`
			Subdomain       wireStr         `json:"subdomain"`
			Branch          wireStr         `json:"branch"`
			HaultReason     wireStr         `json:"haultReason"`
			MessageToUser   wireStr         `json:"messageToUser"`
			PullRequestLink wireStr         `json:"pullRequestLink"`
			Todos           json.RawMessage `json:"todos"`
			CreatedAt       wireStr         `json:"createdAt"`
		}
		at := fmt.Sprintf("allSessions[%d]", i)
		if err := decodeObject(ep, at, raw, &w); err != nil {
			return nil, err
		}
		f := fields{ep: ep}
		s := LegacySession{
			SessionID:       f.reqString(at+".sessionId", &w.SessionID),
			Subdomain:       f.optString(at+".subdomain", &w.Subdomain),
			Branch:          f.optString(at+".branch", &w.Branch),
			HaultReason:     f.optString(at+".haultReason", &w.HaultReason),
			MessageToUser:   f.optString(at+".messageToUser", &w.MessageToUser),
			PullRequestLink: f.nullString(at+".pullRequestLink", &w.PullRequestLink),
		}
		if f.err == nil {
			s.Haulted, f.err = requireBool(ep, at+".haulted", &w.Haulted)
		}
		if todos := bytes.TrimSpace(w.Todos); len(todos) > 0 && todos[0] != 'n' {
			s.Todos = json.RawMessage(bytes.Clone(todos))
		}
		if t := f.nullTime(at+".createdAt", &w.CreatedAt); t != nil {
			s.CreatedAt = *t
		}
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, s)
	}
	return out, nil
}
