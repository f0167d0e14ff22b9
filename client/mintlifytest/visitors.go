package mintlifytest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Visitors query limits, as published.
const (
	defaultLimit = 50
	maxLimit     = 250
)

// visitorsQuery is a validated visitors query: a half-open range of day
// numbers and a page.
type visitorsQuery struct {
	from, to      int32
	limit, offset int
}

// parseVisitorsQuery validates the query parameters. It returns every
// problem found, one message each, as the API's details list. Unknown
// parameters are ignored; of a repeated parameter the first value counts.
func parseVisitorsQuery(q url.Values, today int32) (visitorsQuery, []string) {
	vq := visitorsQuery{from: beginningOfData, to: today + 1, limit: defaultLimit}
	var problems []string
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > maxLimit {
			problems = append(problems, fmt.Sprintf("limit: expected an integer between 1 and %d, received %q", maxLimit, v[0]))
		} else {
			vq.limit = n
		}
	}
	if v, ok := q["offset"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 {
			problems = append(problems, fmt.Sprintf("offset: expected an integer greater than or equal to 0, received %q", v[0]))
		} else {
			vq.offset = n
		}
	}
	var fromT, toT time.Time
	if v, ok := q["dateFrom"]; ok {
		t, err := parseAPIDate(v[0])
		if err != nil {
			problems = append(problems, fmt.Sprintf("dateFrom: expected a date in YYYY-MM-DD or ISO 8601 format, received %q", v[0]))
		} else {
			fromT, vq.from = t, dayNumber(t)
		}
	}
	if v, ok := q["dateTo"]; ok {
		t, err := parseAPIDate(v[0])
		if err != nil {
			problems = append(problems, fmt.Sprintf("dateTo: expected a date in YYYY-MM-DD or ISO 8601 format, received %q", v[0]))
		} else {
			toT, vq.to = t, dayNumber(t)
		}
	}
	if !fromT.IsZero() && !toT.IsZero() && fromT.After(toT) {
		problems = append(problems, "dateFrom must not be after dateTo")
	}
	return vq, problems
}

// parseAPIDate accepts YYYY-MM-DD (midnight UTC) or an RFC 3339 date-time.
// A date-time is reduced to its UTC date by the caller.
func parseAPIDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// serveVisitors answers GET /v1/analytics/{projectId}/visitors.
func (s *Server) serveVisitors(r *http.Request, rt route, f *Fault) reply {
	now := s.now()
	if wait, ok := s.takeAnalytics(now); !ok {
		return reply{
			status: http.StatusTooManyRequests,
			body:   analyticsErrorJSON("Rate limit exceeded", nil),
			header: http.Header{"Retry-After": {strconv.FormatInt(retryAfterSeconds(wait), 10)}},
		}
	}
	ds, ok := s.dataset(rt.project)
	if !ok {
		return reply{status: http.StatusNotFound, body: analyticsErrorJSON("project not found", nil)}
	}
	q, problems := parseVisitorsQuery(r.URL.Query(), dayNumber(now))
	if len(problems) > 0 {
		return reply{status: http.StatusBadRequest, body: analyticsErrorJSON("Invalid query parameters", problems)}
	}
	res := s.cache.get(rt.project, ds, q.from, q.to)
	return reply{status: http.StatusOK, body: encodePage(res, q.offset, q.limit, f)}
}

// encodePage writes one page of a range's answer, applying the visitors
// faults.
func encodePage(res *rangeResult, offset, limit int, f *Fault) []byte {
	n := len(res.rows)
	var page []Row
	hasMore := false
	if offset < n {
		end := offset + min(limit, n-offset)
		page = res.rows[offset:end]
		hasMore = end < n
	}
	if f != nil {
		if f.DuplicateRows && offset > 0 && offset <= n {
			page = append([]Row{res.rows[offset-1]}, page...)
		}
		if f.EmptyPage {
			page = nil
		}
		if f.HasMoreForever {
			hasMore = true
		}
	}
	b := make([]byte, 0, 80+len(page)*96)
	b = append(b, `{"totals":{`...)
	b = appendCounts(b, res.totals)
	b = append(b, `},"visitors":[`...)
	for i, row := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendString(b, row.Path)
		b = append(b, ',')
		b = appendCounts(b, row.Counts)
		b = append(b, '}')
	}
	b = append(b, `],"hasMore":`...)
	b = strconv.AppendBool(b, hasMore)
	return append(b, '}')
}

// Visitors returns what the visitors export answers for [from, to): the site
// totals and every path with visitors, sorted as the endpoint sorts them
// (total descending, then path ascending). from and to are reduced to their
// UTC dates; a zero from means from the beginning of the data and a zero to
// means up to and including today by the server's clock, like absent
// dateFrom and dateTo. It panics for a project the server does not know.
// The rows are a copy.
func (s *Server) Visitors(projectID string, from, to time.Time) (totals Counts, rows []Row) {
	ds, ok := s.dataset(projectID)
	if !ok {
		panic(fmt.Sprintf("mintlifytest: Visitors: unknown project %q", projectID))
	}
	f, t := int32(beginningOfData), dayNumber(s.now())+1
	if !from.IsZero() {
		f = dayNumber(from)
	}
	if !to.IsZero() {
		t = dayNumber(to)
	}
	res := s.cache.get(projectID, ds, f, t)
	return res.totals, append([]Row(nil), res.rows...)
}
