package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// ListJobsV1 lists a project's agent sessions through the deprecated
// GET /v1/agent/{projectId}/jobs, the only way to discover jobs without
// knowing their ids. Map each session with LegacySession.Status.
func (c *Client) ListJobsV1(ctx context.Context, projectID string) ([]LegacySession, error) {
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointListJobs, err)
	}
	res, err := c.do(ctx, &call{endpoint: EndpointListJobs, method: http.MethodGet, path: "/v1/agent/" + p + "/jobs"})
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
	root, err := parseBody(ep, body)
	if err != nil {
		return nil, err
	}
	elems, err := root.array("allSessions")
	if err != nil {
		return nil, err
	}
	out := make([]LegacySession, 0, len(elems))
	for i, raw := range elems {
		o, err := asObject(ep, fmt.Sprintf("allSessions[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		var s LegacySession
		if s.SessionID, err = o.requiredString("sessionId", true); err != nil {
			return nil, err
		}
		if s.Haulted, err = o.requiredBool("haulted"); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name string
			dst  *string
		}{
			{"subdomain", &s.Subdomain},
			{"branch", &s.Branch},
			{"haultReason", &s.HaultReason},
			{"messageToUser", &s.MessageToUser},
		} {
			if *f.dst, err = o.optionalString(f.name); err != nil {
				return nil, err
			}
		}
		if s.PullRequestLink, err = o.nullableString("pullRequestLink"); err != nil {
			return nil, err
		}
		if todos, ok := o.get("todos"); ok {
			s.Todos = json.RawMessage(bytes.Clone(todos))
		}
		if at, err := o.nullableTime("createdAt"); err != nil {
			return nil, err
		} else if at != nil {
			s.CreatedAt = *at
		}
		out = append(out, s)
	}
	return out, nil
}
