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

// visitorsQuery is a validated visitors or views query: a half-open range
// of day numbers and a page.
type visitorsQuery struct {
	from, to      int32
	limit, offset int
}

// parseVisitorsQuery validates the query parameters of visitors and views.
// It returns every problem found, one message each, as the API's details
// list. Unknown parameters are ignored; of a repeated parameter the first
// value counts.
func parseVisitorsQuery(q url.Values, today int32) (visitorsQuery, []string) {
	var problems []string
	vq := visitorsQuery{}
	vq.limit = parseLimit(q, defaultLimit, maxLimit, &problems)
	if v, ok := q["offset"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 {
			problems = append(problems, fmt.Sprintf("offset: expected an integer greater than or equal to 0, received %q", v[0]))
		} else {
			vq.offset = n
		}
	}
	vq.from, vq.to = parseRange(q, today, &problems)
	return vq, problems
}

// parseLimit reads the limit parameter: def when absent, a problem when
// not an integer in 1..maxLimit.
func parseLimit(q url.Values, def, maxLimit int, problems *[]string) int {
	v, ok := q["limit"]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 1 || n > maxLimit {
		*problems = append(*problems, fmt.Sprintf("limit: expected an integer between 1 and %d, received %q", maxLimit, v[0]))
		return def
	}
	return n
}

// parseRange reads dateFrom and dateTo as a half-open range of day
// numbers: from the beginning of the data and up to today included when
// absent.
func parseRange(q url.Values, today int32, problems *[]string) (from, to int32) {
	from, to = beginningOfData, today+1
	var fromT, toT time.Time
	if v, ok := q["dateFrom"]; ok {
		t, err := parseAPIDate(v[0])
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("dateFrom: expected a date in YYYY-MM-DD or ISO 8601 format, received %q", v[0]))
		} else {
			fromT, from = t, dayNumber(t)
		}
	}
	if v, ok := q["dateTo"]; ok {
		t, err := parseAPIDate(v[0])
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("dateTo: expected a date in YYYY-MM-DD or ISO 8601 format, received %q", v[0]))
		} else {
			toT, to = t, dayNumber(t)
		}
	}
	if !fromT.IsZero() && !toT.IsZero() && fromT.After(toT) {
		*problems = append(*problems, "dateFrom must not be after dateTo")
	}
	return from, to
}

// parseAPIDate accepts YYYY-MM-DD (midnight UTC) or an RFC 3339 date-time.
// A date-time is reduced to its UTC date by the caller.
func parseAPIDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// servePaths answers GET /v1/analytics/{projectId}/visitors and /views.
func (s *Server) servePaths(r *http.Request, rt route, ds *Dataset, f *Fault) reply {
	q, problems := parseVisitorsQuery(r.URL.Query(), dayNumber(s.now()))
	if len(problems) > 0 {
		return badQuery(problems)
	}
	views := rt.endpoint == EndpointViews
	res := s.cache.getKind(rt.project, ds, views, q.from, q.to)
	arr := "visitors"
	if views {
		arr = "views"
	}
	if s.unorderedPaths {
		res = &rangeResult{totals: res.totals, rows: unordered(res.rows)}
	}
	return reply{status: http.StatusOK, body: encodePage(res, arr, q.offset, q.limit, f)}
}

// encodePage writes one page of a range's answer, with the rows in the
// array named arr, applying the paging faults.
func encodePage(res *rangeResult, arr string, offset, limit int, f *Fault) []byte {
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
	totals := res.totals
	if f != nil && f.Totals != nil {
		totals = *f.Totals
	}
	b := make([]byte, 0, 80+len(page)*96)
	b = append(b, `{"totals":{`...)
	b = appendCounts(b, totals)
	b = append(b, `},"`...)
	b = append(b, arr...)
	b = append(b, `":[`...)
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
	f, t := s.dayRange(from, to)
	res := s.cache.get(projectID, ds, f, t)
	return res.totals, append([]Row(nil), res.rows...)
}

// dayRange reduces a truth accessor's range to day numbers, as absent
// dateFrom and dateTo are.
func (s *Server) dayRange(from, to time.Time) (int32, int32) {
	f, t := int32(beginningOfData), dayNumber(s.now())+1
	if !from.IsZero() {
		f = dayNumber(from)
	}
	if !to.IsZero() {
		t = dayNumber(to)
	}
	return f, t
}
