package mintlifytest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Published limits of the analytics endpoints other than visitors and
// views.
const (
	feedbackDefaultLimit      = 10
	feedbackMaxLimit          = 100
	searchesDefaultLimit      = 50
	searchesMaxLimit          = 100
	conversationsDefaultLimit = 100
	conversationsMaxLimit     = 1000
)

// Filter values of feedback by page.
var (
	feedbackSources  = []string{"code_snippet", "contextual", "agent", "thumbs_only"}
	feedbackStatuses = []string{"pending", "in_progress", "resolved", "dismissed"}
)

// serveAnalytics answers every analytics endpoint: it spends the
// organization's shared limit, finds the project and hands over to the
// endpoint.
func (s *Server) serveAnalytics(r *http.Request, rt route, f *Fault) reply {
	h, ok := analyticsHandlers[rt.endpoint]
	if !ok { // a client endpoint the fake does not serve
		return reply{status: http.StatusNotFound, body: errorJSON("Not found")}
	}
	if wait, ok := s.takeAnalytics(s.now()); !ok {
		rep := reply{status: http.StatusTooManyRequests, body: analyticsErrorJSON("Rate limit exceeded", nil)}
		if s.retryAfter() {
			rep.header = http.Header{"Retry-After": {strconv.FormatInt(retryAfterSeconds(wait), 10)}}
		}
		return rep
	}
	ds, ok := s.dataset(rt.project)
	if !ok {
		return reply{status: http.StatusNotFound, body: analyticsErrorJSON("project not found", nil)}
	}
	return h(s, r, rt, ds, f)
}

// badQuery is the 400 answer listing every problem.
func badQuery(problems []string) reply {
	return reply{status: http.StatusBadRequest, body: analyticsErrorJSON("Invalid query parameters", problems)}
}

// serveCallerStats answers GET /v1/analytics/{projectId}/assistant/caller-stats.
func (s *Server) serveCallerStats(r *http.Request, ds *Dataset) reply {
	var problems []string
	from, to := parseRange(r.URL.Query(), dayNumber(s.now()), &problems)
	if len(problems) > 0 {
		return badQuery(problems)
	}
	c := ds.callerStats(from, to)
	b := append([]byte(`{"web":`), appendInt(nil, c.Web)...)
	b = append(b, `,"api":`...)
	b = appendInt(b, c.API)
	b = append(b, `,"other":`...)
	b = appendInt(b, c.Other)
	b = append(b, `,"total":`...)
	b = appendInt(b, c.Total)
	return reply{status: http.StatusOK, body: append(b, '}')}
}

// serveFeedbackByPage answers GET /v1/analytics/{projectId}/feedback/by-page.
// It has no offset or cursor; the source and status filters are validated
// but not applied.
func (s *Server) serveFeedbackByPage(r *http.Request, ds *Dataset, f *Fault) reply {
	q := r.URL.Query()
	var problems []string
	limit := parseLimit(q, feedbackDefaultLimit, feedbackMaxLimit, &problems)
	for _, p := range []string{"offset", "cursor"} {
		if _, ok := q[p]; ok {
			problems = append(problems, p+": not supported by this endpoint")
		}
	}
	if v, ok := q["source"]; ok && !oneOf(v[0], feedbackSources) {
		problems = append(problems, fmt.Sprintf("source: expected one of %s, received %q", strings.Join(feedbackSources, ", "), v[0]))
	}
	if v, ok := q["status"]; ok {
		for _, st := range strings.Split(v[0], ",") {
			if !oneOf(st, feedbackStatuses) {
				problems = append(problems, fmt.Sprintf("status: expected a comma-separated list of %s, received %q", strings.Join(feedbackStatuses, ", "), v[0]))
				break
			}
		}
	}
	from, to := parseRange(q, dayNumber(s.now()), &problems)
	if len(problems) > 0 {
		return badQuery(problems)
	}
	rows := ds.feedbackRows(from, to)
	hasMore := len(rows) > limit
	rows = rows[:min(limit, len(rows))]
	if f != nil {
		if f.EmptyPage {
			rows = nil
		}
		hasMore = hasMore || f.HasMoreForever
	}
	b := append(make([]byte, 0, 64+len(rows)*96), `{"feedback":[`...)
	for i, row := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendString(b, row.Path)
		b = append(b, `,"thumbsUp":`...)
		b = appendInt(b, row.ThumbsUp)
		b = append(b, `,"thumbsDown":`...)
		b = appendInt(b, row.ThumbsDown)
		b = append(b, `,"code":`...)
		b = appendInt(b, row.Code)
		b = append(b, `,"total":`...)
		b = appendInt(b, row.Total)
		b = append(b, '}')
	}
	b = append(b, `],"hasMore":`...)
	b = strconv.AppendBool(b, hasMore)
	return reply{status: http.StatusOK, body: append(b, '}')}
}

// oneOf reports whether v is in list.
func oneOf(v string, list []string) bool {
	for _, x := range list {
		if v == x {
			return true
		}
	}
	return false
}

// searchCursorPrefix starts every searches cursor before encoding.
const searchCursorPrefix = "searches:"

// encodeSearchCursor makes the opaque cursor of the row at offset.
func encodeSearchCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(searchCursorPrefix + strconv.Itoa(offset)))
}

// decodeSearchCursor reads a cursor made by encodeSearchCursor.
func decodeSearchCursor(c string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(raw), searchCursorPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// serveSearches answers GET /v1/analytics/{projectId}/searches.
func (s *Server) serveSearches(r *http.Request, ds *Dataset, f *Fault) reply {
	q := r.URL.Query()
	var problems []string
	limit := parseLimit(q, searchesDefaultLimit, searchesMaxLimit, &problems)
	offset := 0
	if v, ok := q["cursor"]; ok {
		n, ok := decodeSearchCursor(v[0])
		if !ok {
			problems = append(problems, fmt.Sprintf("cursor: invalid cursor %q", v[0]))
		}
		offset = n
	}
	from, to := parseRange(q, dayNumber(s.now()), &problems)
	if len(problems) > 0 {
		return badQuery(problems)
	}
	terms, total := ds.searchRows(from, to)
	var page []SearchTerm
	var next *string
	if offset < len(terms) {
		end := offset + min(limit, len(terms)-offset)
		page = terms[offset:end]
		if end < len(terms) {
			c := encodeSearchCursor(end)
			next = &c
		}
	}
	if f != nil {
		if f.EmptyPage {
			page = nil
		}
		if f.HasMoreForever && next == nil {
			c := encodeSearchCursor(offset + len(page))
			next = &c
		}
		if f.RepeatCursor {
			c := q.Get("cursor")
			switch {
			case c == "" && next != nil:
				c = *next
			case c == "":
				c = encodeSearchCursor(0)
			}
			next = &c
		}
		if f.NoNextCursor {
			next = nil
		}
	}
	b := append(make([]byte, 0, 64+len(page)*160), `{"searches":[`...)
	for i, t := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"searchQuery":`...)
		b = appendString(b, t.Query)
		b = append(b, `,"hits":`...)
		b = appendInt(b, t.Hits)
		b = append(b, `,"ctr":`...)
		b = strconv.AppendFloat(b, t.CTR, 'g', -1, 64)
		b = append(b, `,"topClickedPage":`...)
		b = appendNullableString(b, nonEmpty(t.TopClickedPage))
		b = append(b, `,"lastSearchedAt":`...)
		b = appendString(b, t.LastSearchedAt.UTC().Format(jsonTime))
		b = append(b, '}')
	}
	b = append(b, `],"totalSearches":`...)
	b = appendInt(b, total)
	b = append(b, `,"nextCursor":`...)
	b = appendNullableString(b, next)
	return reply{status: http.StatusOK, body: append(b, '}')}
}

// jsonTime is how the fake writes analytics date-times.
const jsonTime = "2006-01-02T15:04:05.000Z07:00"

// nonEmpty is nil for "", else &s.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// repeatedCursor is the nextCursor of a RepeatCursor fault on a first
// page without turns.
const repeatedCursor = "01HZZZZZZZZZZZZZZZZZZZZZZZ"

// serveConversations answers GET /v1/analytics/{projectId}/assistant: turns
// newest first (by ID, descending); the cursor is the ID of the last turn
// of the previous page, and a page starts after it.
func (s *Server) serveConversations(r *http.Request, ds *Dataset, f *Fault) reply {
	q := r.URL.Query()
	var problems []string
	limit := parseLimit(q, conversationsDefaultLimit, conversationsMaxLimit, &problems)
	cursor := ""
	if v, ok := q["cursor"]; ok {
		cursor = strings.ToUpper(v[0])
		if !validULID(cursor) {
			problems = append(problems, fmt.Sprintf("cursor: expected a ULID, received %q", v[0]))
		}
	}
	from, to := parseRange(q, dayNumber(s.now()), &problems)
	if len(problems) > 0 {
		return badQuery(problems)
	}
	turns := ds.turnsIn(from, to)
	start := 0
	if cursor != "" {
		start = len(turns)
		for i, t := range turns {
			if t.ID < cursor {
				start = i
				break
			}
		}
	}
	end := start + min(limit, len(turns)-start)
	page := turns[start:end]
	hasMore := end < len(turns)
	var next *string
	if hasMore {
		c := page[len(page)-1].ID
		next = &c
	}
	if f != nil {
		if f.EmptyPage {
			page = nil
		}
		if f.HasMoreForever {
			hasMore = true
			if next == nil && end > 0 {
				c := turns[end-1].ID
				next = &c
			}
		}
		if f.RepeatCursor {
			hasMore = true
			c := cursor
			switch {
			case c == "" && next != nil:
				c = *next
			case c == "":
				c = repeatedCursor
			}
			next = &c
		}
		if f.NoNextCursor {
			hasMore, next = true, nil
		}
	}
	b := append(make([]byte, 0, 64+len(page)*400), `{"conversations":[`...)
	for i, t := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTurn(b, t)
	}
	b = append(b, `],"nextCursor":`...)
	b = appendNullableString(b, next)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, hasMore)
	return reply{status: http.StatusOK, body: append(b, '}')}
}

// appendTurn writes one conversation turn.
func appendTurn(b []byte, t Turn) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, t.ID)
	b = append(b, `,"timestamp":`...)
	b = appendString(b, t.Time.UTC().Format(jsonTime))
	b = append(b, `,"query":`...)
	b = appendString(b, t.Query)
	b = append(b, `,"response":`...)
	b = appendString(b, t.Response)
	if t.ResponseType != "" {
		b = append(b, `,"responseType":`...)
		b = appendString(b, t.ResponseType)
	}
	b = append(b, `,"sources":[`...)
	for i, src := range t.Sources {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"title":`...)
		b = appendString(b, src.Title)
		b = append(b, `,"url":`...)
		b = appendString(b, src.URL)
		b = append(b, '}')
	}
	b = append(b, `],"resolutionStatus":`...)
	b = appendNullableString(b, nonEmpty(t.Resolution))
	b = append(b, `,"queryCategory":`...)
	b = appendNullableString(b, nonEmpty(t.QueryCategory))
	b = append(b, `,"pageUrl":`...)
	b = appendNullableString(b, nonEmpty(t.PageURL))
	return append(b, '}')
}

// truthDataset returns a project's dataset for a truth accessor, panicking
// for an unknown project.
func (s *Server) truthDataset(what, projectID string) *Dataset {
	ds, ok := s.dataset(projectID)
	if !ok {
		panic(fmt.Sprintf("mintlifytest: %s: unknown project %q", what, projectID))
	}
	return ds
}

// Views returns what the views export answers for [from, to): the site
// totals (the sums over paths: views are additive) and every path with
// views, sorted as the endpoint sorts them (total descending, then path
// ascending). Dates work as for Visitors. The rows are a copy.
func (s *Server) Views(projectID string, from, to time.Time) (totals Counts, rows []Row) {
	ds := s.truthDataset("Views", projectID)
	f, t := s.dayRange(from, to)
	res := s.cache.getKind(projectID, ds, true, f, t)
	return res.totals, append([]Row(nil), res.rows...)
}

// CallerStats returns what assistant caller stats answers for [from, to).
// Dates work as for Visitors.
func (s *Server) CallerStats(projectID string, from, to time.Time) CallerStats {
	ds := s.truthDataset("CallerStats", projectID)
	f, t := s.dayRange(from, to)
	return ds.callerStats(f, t)
}

// FeedbackByPage returns every page with feedback in [from, to), in the
// order feedback by page serves them (total descending, then path
// ascending), not cut at any limit. Dates work as for Visitors.
func (s *Server) FeedbackByPage(projectID string, from, to time.Time) []PageFeedback {
	ds := s.truthDataset("FeedbackByPage", projectID)
	f, t := s.dayRange(from, to)
	return ds.feedbackRows(f, t)
}

// Searches returns every search term with hits in [from, to), in the order
// searches serves them (hits descending, then term ascending), and
// totalSearches, the number of search events in the range. Dates work as
// for Visitors.
func (s *Server) Searches(projectID string, from, to time.Time) (terms []SearchTerm, totalSearches int64) {
	ds := s.truthDataset("Searches", projectID)
	f, t := s.dayRange(from, to)
	return ds.searchRows(f, t)
}

// Conversations counts the conversation turns of [from, to) by response
// type and resolution, as a client should count them (see ConversationKey).
// Dates work as for Visitors.
func (s *Server) Conversations(projectID string, from, to time.Time) map[ConversationKey]int {
	ds := s.truthDataset("Conversations", projectID)
	f, t := s.dayRange(from, to)
	out := make(map[ConversationKey]int)
	for _, turn := range ds.turnsIn(f, t) {
		k := ConversationKey{ResponseType: turn.ResponseType, Resolution: turn.Resolution}
		if k.ResponseType == "" {
			k.ResponseType = "answer"
		}
		if k.Resolution == "" {
			k.Resolution = "unknown"
		}
		out[k]++
	}
	return out
}

// ConversationTurns returns the turns of [from, to), newest first, as the
// conversations listing serves them. Dates work as for Visitors.
func (s *Server) ConversationTurns(projectID string, from, to time.Time) []Turn {
	ds := s.truthDataset("ConversationTurns", projectID)
	f, t := s.dayRange(from, to)
	return append([]Turn(nil), ds.turnsIn(f, t)...)
}
