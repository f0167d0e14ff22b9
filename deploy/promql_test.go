package deploy

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// designMetrics are the metrics of DESIGN.md, the exporter's contract.
var designMetrics = []string{
	"mintlify_visitors",
	"mintlify_visitors_deduplicated",
	"mintlify_page_visitors",
	"mintlify_page_visitors_deduplicated",
	"mintlify_visitors_paths",
	"mintlify_visitors_paths_exported",
	"mintlify_views",
	"mintlify_page_views",
	"mintlify_views_paths",
	"mintlify_views_paths_exported",
	"mintlify_assistant_queries",
	"mintlify_page_feedback",
	"mintlify_feedback_pages_truncated",
	"mintlify_searches",
	"mintlify_search_term_hits",
	"mintlify_search_term_click_through_rate",
	"mintlify_search_term_click_through_ratio",
	"mintlify_search_terms_without_clicks",
	"mintlify_assistant_conversations",
	"mintlify_rows_skipped_total",
	"mintlify_agent_jobs",
	"mintlify_agent_job_info",
	"mintlify_agent_job_status",
	"mintlify_agent_job_created_timestamp_seconds",
	"mintlify_agent_jobs_not_found",
	"mintlify_up",
	"mintlify_units_waiting",
	"mintlify_derived_window",
	"mintlify_derived_window_drift_ratio",
	"mintlify_derived_day_changes_total",
	"mintlify_last_success_timestamp_seconds",
	"mintlify_refresh_duration_seconds",
	"mintlify_refresh_interval_seconds",
	"mintlify_api_requests_total",
	"mintlify_api_request_duration_seconds_bucket",
	"mintlify_api_request_duration_seconds_sum",
	"mintlify_api_request_duration_seconds_count",
	"mintlify_api_budget_remaining",
	"mintlify_exporter_build_info",
	// The event stream (DESIGN.md, "Event stream (Enterprise S3)").
	"mintlify_stream_events_total",
	"mintlify_stream_page_views_total",
	"mintlify_stream_referrals_total",
	"mintlify_stream_visitors",
	"mintlify_stream_page_visitors",
	"mintlify_stream_searches_total",
	"mintlify_stream_search_result_clicks_total",
	"mintlify_stream_search_term_queries_total",
	"mintlify_stream_feedback_total",
	"mintlify_stream_assistant_conversations_total",
	"mintlify_stream_assistant_errors_total",
	"mintlify_stream_mcp_tool_calls_total",
	"mintlify_stream_context_menu_actions_total",
	"mintlify_stream_objects_read_total",
	"mintlify_stream_objects_skipped_total",
	"mintlify_stream_lines_read_total",
	"mintlify_stream_lines_refused_total",
	"mintlify_stream_duplicates_dropped_total",
	"mintlify_stream_unmapped_subdomains",
	"mintlify_stream_last_object_timestamp_seconds",
	"mintlify_stream_lag_seconds",
}

// standardMetrics are series Prometheus writes for every target.
var standardMetrics = []string{
	"up",
	"scrape_duration_seconds",
	"scrape_samples_scraped",
	"scrape_samples_post_metric_relabeling",
	"scrape_series_added",
}

// standardPrefixes are the client library's process, Go runtime and
// promhttp metrics.
var standardPrefixes = []string{"process_", "go_", "promhttp_"}

// visitorMetrics hold unique visitor counts, which are not additive.
var visitorMetrics = []string{
	"mintlify_visitors",
	"mintlify_visitors_deduplicated",
	"mintlify_page_visitors",
	"mintlify_page_visitors_deduplicated",
	"mintlify_stream_visitors",
	"mintlify_stream_page_visitors",
}

var (
	promqlString   = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`")
	promqlMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promqlRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promqlGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promqlIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promqlSum      = regexp.MustCompile(`\b(?:sum|avg|count|count_values|quantile|sum_over_time|avg_over_time)\b`)
)

var promqlKeywords = []string{
	"and", "or", "unless", "offset", "bool", "by", "without", "on", "ignoring",
	"group_left", "group_right", "inf", "nan", "atan2", "start", "end",
}

// stripPromQL removes string literals from a PromQL expression, so that
// label values are never taken for names or operators.
func stripPromQL(expr string) string {
	return promqlString.ReplaceAllString(expr, `""`)
}

// metricNames returns the metric names a PromQL expression selects: every
// identifier that is not a function, an aggregation, a keyword, a label in
// a matcher or grouping clause, or part of a number or duration.
func metricNames(expr string) []string {
	s := stripPromQL(expr)
	s = promqlMatchers.ReplaceAllString(s, " ")
	s = promqlRange.ReplaceAllString(s, " ")
	s = promqlGrouping.ReplaceAllString(s, " ")
	var names []string
	for _, loc := range promqlIdent.FindAllStringIndex(s, -1) {
		if loc[0] > 0 && strings.ContainsRune("0123456789.$_:", rune(s[loc[0]-1])) {
			continue // a duration (7d), an exponent or a Grafana variable
		}
		name := s[loc[0]:loc[1]]
		if strings.HasPrefix(strings.TrimLeft(s[loc[1]:], " \t\n"), "(") {
			continue // a function or aggregation
		}
		if slices.Contains(promqlKeywords, name) || slices.Contains(names, name) {
			continue
		}
		names = append(names, name)
	}
	return names
}

// knownMetric reports whether name is a metric the exporter or Prometheus
// produces, or one of the given recording rules.
func knownMetric(name string, recorded []string) bool {
	if slices.Contains(designMetrics, name) || slices.Contains(standardMetrics, name) || slices.Contains(recorded, name) {
		return true
	}
	for _, p := range standardPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// additivityProblem explains why expr adds up unique visitor counts, or
// returns "" when it does not. Unique visitors of pages, windows or traffic
// kinds cannot be summed or averaged into a meaningful number. An
// aggregation is a problem when its argument selects unique visitors: a
// query may sum page views (events, additive) and show unique visitors
// beside them. Any + in a query that selects unique visitors is one.
func additivityProblem(expr string) string {
	uses := false
	for _, n := range metricNames(expr) {
		if slices.Contains(visitorMetrics, n) {
			uses = true
		}
	}
	if !uses {
		return ""
	}
	s := promqlMatchers.ReplaceAllString(stripPromQL(expr), " ")
	for _, loc := range promqlSum.FindAllStringIndex(s, -1) {
		arg := strings.TrimLeft(s[loc[1]:], " \t\n")
		if g := promqlGroupingPrefix.FindString(arg); g != "" {
			arg = strings.TrimLeft(arg[len(g):], " \t\n")
		}
		if !strings.HasPrefix(arg, "(") {
			continue // not a call
		}
		for _, n := range metricNames(balancedArgument(arg)) {
			if slices.Contains(visitorMetrics, n) {
				return "aggregates unique visitors with " + s[loc[0]:loc[1]]
			}
		}
	}
	if strings.Contains(s, "+") {
		return "adds unique visitor series with +"
	}
	return ""
}

// promqlGroupingPrefix matches a grouping clause written before an
// aggregation's argument: sum by (a, b) (x).
var promqlGroupingPrefix = regexp.MustCompile(`^(?:by|without)\s*\([^)]*\)`)

// balancedArgument returns what s, which starts with "(", holds up to the
// matching ")", or the rest of s when the parentheses do not balance.
func balancedArgument(s string) string {
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[1:i]
			}
		}
	}
	return s[1:]
}

func TestMetricNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`up{job="mintlify"} == 0`, []string{"up"}},
		{`topk by (project) (25, max without (instance, job) (mintlify_page_visitors{path="/a{b}", window="$window"}))`, []string{"mintlify_page_visitors"}},
		{`histogram_quantile(0.9, sum by (endpoint, le) (rate(mintlify_api_request_duration_seconds_bucket[$__rate_interval])))`, []string{"mintlify_api_request_duration_seconds_bucket"}},
		{`a offset 7d < 0.5 * b and on (job, instance) c`, []string{"a", "b", "c"}},
		{`time() - x > 3 * y and x > 0`, []string{"x", "y"}},
		{`count by (project) (i unless on (project, job_id) i offset $__interval)`, []string{"i"}},
		{`level:metric:rate5m * 1e3`, []string{"level:metric:rate5m"}},
	} {
		if got := metricNames(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("metricNames(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func TestAdditivityProblem(t *testing.T) {
	for _, tc := range []struct {
		expr string
		bad  bool
	}{
		{`sum(mintlify_page_visitors_deduplicated)`, true},
		{`sum by (project) (mintlify_visitors_deduplicated{window=~"1d|7d"})`, true},
		{`mintlify_visitors{traffic="human"} + ignoring (traffic) mintlify_visitors{traffic="ai"}`, true},
		{`avg_over_time(mintlify_visitors[1d])`, true},
		{`mintlify_visitors{traffic="ai"} / ignoring (traffic) mintlify_visitors_deduplicated`, false},
		{`topk(25, mintlify_page_visitors_deduplicated{path="/a+b"})`, false},
		{`sum(mintlify_agent_jobs)`, false},
		{`sum(mintlify_visitors_paths)`, false},
		{`count by (project) (mintlify_page_visitors{window="7d"})`, true},
		{`sum without (traffic) (mintlify_visitors{traffic=~"human|ai"})`, true},
		{`sum(max without (instance) (mintlify_page_visitors_deduplicated))`, true},
		{`sum(mintlify_page_views) by (project) / on (project) group_left mintlify_visitors_deduplicated`, false},
		{`mintlify_page_visitors_deduplicated and on (path) topk(25, sum without (traffic) (mintlify_page_views))`, false},
		{`sum(mintlify_page_views) + on (project) mintlify_visitors_deduplicated`, true},
		{`mintlify_views{traffic=~"human|ai"} / mintlify_visitors`, false},
	} {
		if got := additivityProblem(tc.expr) != ""; got != tc.bad {
			t.Errorf("additivityProblem(%q) reported %v, want %v", tc.expr, got, tc.bad)
		}
	}
}
