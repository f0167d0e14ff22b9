package e2e

// Every PromQL query of the shipped Grafana dashboards, with Grafana's
// variables substituted.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// dashQuery is one query of a dashboard: a panel target's expr, or a query
// variable's definition.
type dashQuery struct {
	// key is "file/panel title/refId" for a target and
	// "file/$name" for a variable.
	key string
	// expr is the query with the variables substituted. For a
	// label_values variable it is the series selector (the metric when the
	// query names no selector).
	expr string
	// label is the label of a label_values variable, "" for a target.
	label string
	// variable is the name of a query variable, "" for a target.
	variable string
}

// When a dashboard query is expected to return data.
const (
	// now: during the healthy phase, at the time of the query.
	whenNow = iota
	// whenJobFailed: at the scrape where the failing job was first seen
	// failed.
	whenJobFailed
	// whenRateLimited: after the fake answered a 429.
	whenRateLimited
	// never: needs history the test does not have; the query must still
	// parse.
	whenNever
)

// queryWhen lists every dashboard query that cannot return data at an
// arbitrary moment of the healthy phase, and why. Every other query must.
// The test fails when a key here matches no query, so the list follows
// the dashboards.
var queryWhen = map[string]struct {
	when int
	why  string
}{
	"docs-traffic.json/Human visitors: last 7 days vs the 7 days before/B": {whenNever,
		"offset 7d: the same series a week ago; the test has a minute of history"},
	"agent-jobs.json/Failures/B": {whenJobFailed,
		"counts failed jobs that were not failed $__interval earlier: it has data only at the scrape where a job turned failed, so it is evaluated at that time"},
	"exporter-health.json/429 answers/A": {whenRateLimited,
		"the 429 counter series exists only once the API has answered 429; the test injects one 429 after the healthy phase, because a 429 pauses every refresh"},
}

// grafanaVar matches a Grafana variable reference: $name, ${name},
// ${name:format} or [[name]].
var grafanaVar = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]`)

// substitute replaces every Grafana variable of expr with its value in
// vars; an unknown variable is an error, so that a new variable gets a
// deliberate value here.
func substitute(expr string, vars map[string]string) (string, error) {
	var unknown []string
	out := grafanaVar.ReplaceAllStringFunc(expr, func(ref string) string {
		m := grafanaVar.FindStringSubmatch(ref)
		name := m[1] + m[2] + m[3]
		v, ok := vars[name]
		if !ok {
			unknown = append(unknown, name)
			return ref
		}
		return v
	})
	if len(unknown) > 0 {
		return "", fmt.Errorf("no test value for Grafana variable(s) %v in %q", unknown, expr)
	}
	return out, nil
}

// labelValuesQuery parses Grafana's label_values(selector, label) and
// label_values(label).
var labelValuesQuery = regexp.MustCompile(`^\s*label_values\(\s*(?:(.*\S)\s*,\s*)?(\w+)\s*\)\s*$`)

// dashboardQueries returns every query of every dashboard, variables
// substituted with vars.
func dashboardQueries(t *testing.T, vars map[string]string) []dashQuery {
	t.Helper()
	files, err := filepath.Glob(dashboardsGlob)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no dashboard matches %s", dashboardsGlob)
	}
	var out []dashQuery
	add := func(q dashQuery, raw string) {
		expr, err := substitute(raw, vars)
		if err != nil {
			t.Errorf("%s: %v", q.key, err)
			return
		}
		q.expr = expr
		out = append(out, q)
	}
	for _, f := range files {
		var d struct {
			Panels     []json.RawMessage `json:"panels"`
			Templating struct {
				List []struct {
					Name  string `json:"name"`
					Type  string `json:"type"`
					Query any    `json:"query"`
				} `json:"list"`
			} `json:"templating"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		base := filepath.Base(f)
		for _, tg := range panelTargets(t, base, d.Panels) {
			add(dashQuery{key: base + "/" + tg.title + "/" + tg.refID}, tg.expr)
		}
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			def := ""
			switch q := v.Query.(type) {
			case string:
				def = q
			case map[string]any:
				def, _ = q["query"].(string)
			}
			m := labelValuesQuery.FindStringSubmatch(def)
			if m == nil {
				t.Errorf("%s: variable $%s: the test knows only label_values(...) queries, not %q", base, v.Name, def)
				continue
			}
			sel := m[1]
			if sel == "" {
				sel = `{__name__=~".+"}`
			}
			add(dashQuery{key: base + "/$" + v.Name, label: m[2], variable: v.Name}, sel)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	for k := range queryWhen {
		found := false
		for _, q := range out {
			found = found || q.key == k
		}
		if !found {
			t.Errorf("queryWhen lists %q, which no dashboard has: update the list", k)
		}
	}
	return out
}

// target is one panel target.
type target struct{ title, refID, expr string }

// panelTargets returns the targets of panels and of the panels nested in
// rows.
func panelTargets(t *testing.T, file string, panels []json.RawMessage) []target {
	t.Helper()
	var out []target
	for _, raw := range panels {
		var p struct {
			Title   string            `json:"title"`
			Panels  []json.RawMessage `json:"panels"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: panel: %v", file, err)
		}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" {
				t.Errorf("%s: panel %q target %s has no expr", file, p.Title, tg.RefID)
				continue
			}
			out = append(out, target{p.Title, tg.RefID, tg.Expr})
		}
		out = append(out, panelTargets(t, file, p.Panels)...)
	}
	return out
}
