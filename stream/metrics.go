package stream

import (
	"github.com/prometheus/client_golang/prometheus"
)

// famInfo names a counter family's metric and labels.
var famInfo = [numFams]struct {
	name, help string
	labels     []string
}{
	fEvents:    {"mintlify_stream_events_total", "Events read from the stream, each once, by project and eventType (unknown types included; past 200 types a project's later ones count as event=\"other\").", []string{"project", "event"}},
	fPageViews: {"mintlify_stream_page_views_total", "Page and Markdown view events by path and traffic class (human, ai, search_index, training, other_ai: by user agent, --stream.traffic-rules); paths past --stream.max-paths count as path=\"other\".", []string{"project", "path", "traffic"}},
	fReferrals: {"mintlify_stream_referrals_total", "View events by referrer host (none when absent); hosts past --stream.top-referrers count as referrer=\"other\".", []string{"project", "referrer"}},
	fSearches:  {"mintlify_stream_searches_total", "Search query events.", []string{"project"}},
	fClicks:    {"mintlify_stream_search_result_clicks_total", "Search result click events.", []string{"project"}},
	fTerms:     {"mintlify_stream_search_term_queries_total", "Search queries by normalized term (only with --stream.search-terms; past 100 terms later ones count as term=\"other\").", []string{"project", "term"}},
	fFeedback:  {"mintlify_stream_feedback_total", "Feedback events by path and kind.", []string{"project", "path", "kind"}},
	fConvs:     {"mintlify_stream_assistant_conversations_total", "AI assistant conversation events.", []string{"project"}},
	fAsstErrs:  {"mintlify_stream_assistant_errors_total", "AI assistant error events.", []string{"project"}},
	fMCP:       {"mintlify_stream_mcp_tool_calls_total", "MCP tool call events by tool.", []string{"project", "tool"}},
	fMenu:      {"mintlify_stream_context_menu_actions_total", "Context menu action events by action.", []string{"project", "action"}},
	fObjects:   {"mintlify_stream_objects_read_total", "Stream objects read whole and counted.", nil},
	fLines:     {"mintlify_stream_lines_read_total", "Non-empty lines read from counted objects (refused ones included).", nil},
	fRefused:   {"mintlify_stream_lines_refused_total", "Lines that could not be counted, by reason.", []string{"reason"}},
	fDups:      {"mintlify_stream_duplicates_dropped_total", "Events dropped because their event_id was already counted.", nil},
	fSkipped:   {"mintlify_stream_objects_skipped_total", "Listed objects never counted, by reason (not_found: vanished before it was read; bad_gzip; read_error: failed 3 polls in a row).", []string{"reason"}},
}

// Gauge families.
var (
	descVisitors = prometheus.NewDesc("mintlify_stream_visitors",
		"Distinct visitors (user_id, else anon_id) over the last 1, 7 or 30 UTC days including today, from merged per-day HyperLogLog sketches (standard error 0.81 %).",
		[]string{"project", "window"}, nil)
	descPageVisitors = prometheus.NewDesc("mintlify_stream_page_visitors",
		"Distinct visitors of each of a project's top 100 paths by views, per window, from merged per-day HyperLogLog sketches (standard error 1.63 %).",
		[]string{"project", "window", "path"}, nil)
	descUnmapped = prometheus.NewDesc("mintlify_stream_unmapped_subdomains",
		"Subdomains seen in the stream that --stream.project does not map (their events carry the subdomain as project).",
		nil, nil)
	descLastObject = prometheus.NewDesc("mintlify_stream_last_object_timestamp_seconds",
		"Last-modified time of the newest object read.", nil, nil)
	descLag = prometheus.NewDesc("mintlify_stream_lag_seconds",
		"Time from the newest event's created_at to the last poll.", nil, nil)
)

func newDescs() (d [numFams]*prometheus.Desc) {
	for f := range numFams {
		d[f] = prometheus.NewDesc(famInfo[f].name, famInfo[f].help, famInfo[f].labels, nil)
	}
	return d
}

// Describe sends the descriptors of the stream's metric families.
func (s *Source) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range s.descs {
		ch <- d
	}
	ch <- descVisitors
	ch <- descPageVisitors
	ch <- descUnmapped
	ch <- descLastObject
	ch <- descLag
}

// Collect sends the stream's metrics: the counters (the process-wide ones
// always, from 0), the visitor gauges as estimated at the last poll.
func (s *Source) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	for _, f := range []fam{fObjects, fLines, fDups} {
		ch <- prometheus.MustNewConstMetric(s.descs[f], prometheus.CounterValue, float64(st.counters[series{f: f}]))
	}
	for k, v := range st.counters {
		if k.f == fObjects || k.f == fLines || k.f == fDups {
			continue
		}
		vals := []string{k.a, k.b, k.c}[:len(famInfo[k.f].labels)]
		ch <- prometheus.MustNewConstMetric(s.descs[k.f], prometheus.CounterValue, float64(v), vals...)
	}
	for p, ws := range st.visitors {
		for w, n := range ws {
			ch <- prometheus.MustNewConstMetric(descVisitors, prometheus.GaugeValue, float64(n), p, w)
		}
	}
	for p, paths := range st.pageVis {
		for path, ws := range paths {
			for w, n := range ws {
				ch <- prometheus.MustNewConstMetric(descPageVisitors, prometheus.GaugeValue, float64(n), p, w, path)
			}
		}
	}
	ch <- prometheus.MustNewConstMetric(descUnmapped, prometheus.GaugeValue, float64(len(st.unmapped)))
	if !st.lastObject.IsZero() {
		ch <- prometheus.MustNewConstMetric(descLastObject, prometheus.GaugeValue, float64(st.lastObject.UnixMilli())/1000)
	}
	if !st.newest.IsZero() && !s.lastPoll.IsZero() {
		ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, max(0, s.lastPoll.Sub(st.newest).Seconds()))
	}
}
