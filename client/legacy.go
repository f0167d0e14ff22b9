package client

import (
	"context"
	"fmt"
	"strconv"
)

// Paging of the deprecated v1 listing (skip, take): the API sends no
// hasMore, so a page shorter than take is the last.
const (
	// ListJobsMaxTake is the largest take the API accepts, the one sent.
	ListJobsMaxTake = 100
	// DefaultListJobsMaxPages bounds the walk (ErrTooManyPages).
	DefaultListJobsMaxPages = 100
)

// ListJobsV1Counting lists every agent session of a project through the
// deprecated v1 listing, the only way to discover jobs without their ids,
// reading every page until one is shorter than take. A session listed twice
// (a job created during the walk shifts the newest-first listing) is kept
// once; a failed page fails the walk. No field is required, but a session
// that is not an object (encoding/json leaves it zero), has a field of the
// wrong type or no usable sessionId (it becomes a job_id label and cannot
// be cut) is skipped and counted.
func (c *Client) ListJobsV1Counting(ctx context.Context, projectID string) ([]LegacySession, int, error) {
	out := []LegacySession{}
	seen := make(map[string]bool)
	skipped := 0
	for page := range DefaultListJobsMaxPages {
		body, err := c.getPage(ctx, EndpointListJobs, projectID, DateRange{}, 0, 0, "skip", strconv.Itoa(page*ListJobsMaxTake), "take", strconv.Itoa(ListJobsMaxTake))
		var w struct {
			AllSessions []row[sessionWire] `json:"allSessions"`
		}
		if err == nil {
			err = decodePage(EndpointListJobs, body, &w)
		}
		if err != nil {
			return nil, 0, err
		}
		for i := range w.AllSessions {
			switch s, ok := w.AllSessions[i].v.session(); {
			case !ok:
				skipped++
			case !seen[s.SessionID]:
				seen[s.SessionID] = true
				out = append(out, s)
			}
		}
		if len(w.AllSessions) < ListJobsMaxTake { // skipped rows count: the server sent them
			return out, skipped, nil
		}
	}
	return nil, 0, fmt.Errorf("%s: %w: still %d sessions on page %d of %d; the listing is larger than any sane project or the server ignores skip",
		EndpointListJobs, ErrTooManyPages, ListJobsMaxTake, DefaultListJobsMaxPages, DefaultListJobsMaxPages)
}

type sessionWire struct {
	SessionID       leaf `json:"sessionId"`
	Haulted         leaf `json:"haulted"`
	Subdomain       leaf `json:"subdomain"`
	Branch          leaf `json:"branch"`
	HaultReason     leaf `json:"haultReason"`
	MessageToUser   leaf `json:"messageToUser"`
	PullRequestLink leaf `json:"pullRequestLink"`
	CreatedAt       leaf `json:"createdAt"`
}

// session checks a session; without haulted, a session is haulted when its
// haultReason says it ended. The fields the watcher does not read are
// checked for their type only: a wrong one skips the session too.
func (w *sessionWire) session() (LegacySession, bool) {
	f := fields{ep: EndpointListJobs}
	s := LegacySession{
		SessionID:   f.reqString("sessionId", &w.SessionID),
		HaultReason: f.optString("haultReason", &w.HaultReason),
	}
	for _, l := range []*leaf{&w.Subdomain, &w.Branch, &w.MessageToUser, &w.PullRequestLink} {
		f.nullString("", l)
	}
	f.nullTime("createdAt", &w.CreatedAt)
	switch w.Haulted.kind {
	case 't', 'f':
		s.Haulted = w.Haulted.kind == 't'
	case 0, 'n':
		s.Haulted = s.HaultReason != "" && s.HaultReason != HaultReasonProcessing
	default:
		f.fail("haulted", "")
	}
	return s, f.err == nil && len(s.SessionID) <= MaxLabelBytes
}
