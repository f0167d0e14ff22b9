package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// wantDashboards maps each dashboard file to its stable uid.
var wantDashboards = map[string]string{
	"docs-traffic.json":    "mintlify-docs-traffic",
	"agent-jobs.json":      "mintlify-agent-jobs",
	"exporter-health.json": "mintlify-exporter-health",
	"docs-quality.json":    "mintlify-docs-quality",
	"docs-stream.json":     "mintlify-docs-stream",
}

// grafanaVariables are substituted in dashboard queries before they are
// checked, with values a test Prometheus would accept.
var grafanaVariables = strings.NewReplacer(
	"$__rate_interval", "2m",
	"$__interval", "1m",
	"$__range", "1h",
	"$project", "acme",
	"$cluster", ".*",
	"$job", "mintlify",
	"$instance", ".*",
	"$window", "7d",
	"$path", "/quickstart",
)

// datasourceRef is the only data source reference a dashboard may hold.
const datasourceRef = "${datasource}"

type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Query      any    `json:"query"`
			Datasource any    `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID          int    `json:"id"`
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Datasource  any    `json:"datasource"`
	Targets     []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Panels []panel `json:"panels"`
}

// loadDashboards parses every dashboard file, keyed by file name.
func loadDashboards(t *testing.T) map[string]dashboard {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dashboard{}
	for _, f := range files {
		var d dashboard
		if err := json.Unmarshal(readFile(t, f), &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = d
	}
	return out
}

// queryPanels returns the panels that query data, rows unfolded.
func queryPanels(ps []panel) []panel {
	var out []panel
	for _, p := range ps {
		if p.Type == "row" {
			out = append(out, queryPanels(p.Panels)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// dashboardQueries returns every PromQL expression of a dashboard, Grafana
// variables unsubstituted, keyed by "panel title/refId".
func dashboardQueries(d dashboard) map[string]string {
	out := map[string]string{}
	for _, p := range queryPanels(d.Panels) {
		for _, tg := range p.Targets {
			out[p.Title+"/"+tg.RefID] = tg.Expr
		}
	}
	return out
}

func TestDashboardsExist(t *testing.T) {
	ds := loadDashboards(t)
	for file, uid := range wantDashboards {
		d, ok := ds[file]
		if !ok {
			t.Errorf("dashboards/%s is missing", file)
			continue
		}
		if d.UID != uid {
			t.Errorf("%s: uid %q, want %q", file, d.UID, uid)
		}
	}
	for file, d := range ds {
		if d.Title == "" {
			t.Errorf("%s: no title", file)
		}
		if d.SchemaVersion < 36 {
			t.Errorf("%s: schemaVersion %d, want a recent one (36 or later)", file, d.SchemaVersion)
		}
		if len(queryPanels(d.Panels)) == 0 {
			t.Errorf("%s: no panels", file)
		}
	}
}

func TestDashboardPanels(t *testing.T) {
	for file, d := range loadDashboards(t) {
		ids := map[int]bool{}
		var all []panel
		for _, p := range d.Panels {
			all = append(all, p)
			all = append(all, p.Panels...)
		}
		for _, p := range all {
			if ids[p.ID] {
				t.Errorf("%s: panel id %d used twice", file, p.ID)
			}
			ids[p.ID] = true
		}
		for _, p := range queryPanels(d.Panels) {
			name := fmt.Sprintf("%s: panel %q", file, p.Title)
			if strings.TrimSpace(p.Description) == "" {
				t.Errorf("%s has no description", name)
			}
			if p.FieldConfig.Defaults.Unit == "" {
				t.Errorf("%s has no unit", name)
			}
			if ref, _ := p.Datasource.(map[string]any); ref == nil || ref["uid"] != datasourceRef {
				t.Errorf("%s: datasource %v, want uid %s", name, p.Datasource, datasourceRef)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s has no query", name)
			}
			for _, tg := range p.Targets {
				if strings.TrimSpace(tg.Expr) == "" || tg.RefID == "" {
					t.Errorf("%s: a query without expr or refId", name)
				}
			}
		}
	}
}

// TestDashboardDatasources walks each dashboard for data source references:
// all must be the datasource variable, never a fixed uid.
func TestDashboardDatasources(t *testing.T) {
	for file := range wantDashboards {
		var raw any
		if err := json.Unmarshal(readFile(t, filepath.Join(dashboardsDir, file)), &raw); err != nil {
			t.Fatal(err)
		}
		n := 0
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					if k == "datasource" {
						n++
						ref, ok := c.(map[string]any)
						if !ok || ref["uid"] != datasourceRef || ref["type"] != "prometheus" {
							t.Errorf("%s: %s.datasource is %v, want {type: prometheus, uid: %s}", file, path, c, datasourceRef)
						}
						continue
					}
					walk(path+"."+k, c)
				}
			case []any:
				for i, c := range v {
					walk(fmt.Sprintf("%s[%d]", path, i), c)
				}
			}
		}
		walk("", raw)
		if n == 0 {
			t.Errorf("%s: no data source reference at all", file)
		}
	}
	for file, d := range loadDashboards(t) {
		var names []string
		for _, v := range d.Templating.List {
			names = append(names, v.Name)
			if v.Name == "datasource" && (v.Type != "datasource" || v.Query != "prometheus") {
				t.Errorf("%s: the datasource variable is %s of %v, want a datasource variable of prometheus", file, v.Type, v.Query)
			}
		}
		if !slices.Contains(names, "datasource") || !slices.Contains(names, "project") {
			t.Errorf("%s: variables %q, want datasource and project", file, names)
		}
	}
}

var labelValues = regexp.MustCompile(`^label_values\((.*),\s*([a-z_]+)\)$`)

// TestDashboardVariables checks the template variables' queries and that
// every variable a query uses is defined or substituted by Grafana.
func TestDashboardVariables(t *testing.T) {
	_, records := loadRules(t)
	recorded := recordNames(records)
	varRef := regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
	for file, d := range loadDashboards(t) {
		defined := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
		for _, v := range d.Templating.List {
			defined[v.Name] = true
			if v.Type != "query" {
				continue
			}
			q, _ := v.Query.(string)
			m := labelValues.FindStringSubmatch(q)
			if m == nil {
				t.Errorf("%s: variable %s: query %q is not label_values(selector, label)", file, v.Name, q)
				continue
			}
			for _, name := range metricNames(m[1]) {
				if !knownMetric(name, recorded) {
					t.Errorf("%s: variable %s: unknown metric %s", file, v.Name, name)
				}
			}
			if ref, _ := v.Datasource.(map[string]any); ref == nil || ref["uid"] != datasourceRef {
				t.Errorf("%s: variable %s does not use the datasource variable", file, v.Name)
			}
		}
		if file == "docs-traffic.json" && (!defined["window"] || !defined["path"]) {
			t.Errorf("%s: no window or path variable", file)
		}
		for key, expr := range dashboardQueries(d) {
			for _, m := range varRef.FindAllStringSubmatch(expr, -1) {
				if !defined[m[1]] {
					t.Errorf("%s: %s uses the undefined variable $%s", file, key, m[1])
				}
			}
		}
	}
}

func TestDashboardMetrics(t *testing.T) {
	_, records := loadRules(t)
	recorded := recordNames(records)
	for file, d := range loadDashboards(t) {
		for key, expr := range dashboardQueries(d) {
			names := metricNames(expr)
			if len(names) == 0 {
				t.Errorf("%s: %s selects no metric: %s", file, key, expr)
			}
			for _, n := range names {
				if !knownMetric(n, recorded) {
					t.Errorf("%s: %s: unknown metric %s", file, key, n)
				}
			}
			if p := additivityProblem(expr); p != "" {
				t.Errorf("%s: %s %s: %s", file, key, p, expr)
			}
		}
	}
}

// TestDashboardQueriesParse has promtool parse every dashboard query, with
// Grafana's variables substituted, as the expression of a recording rule.
func TestDashboardQueriesParse(t *testing.T) {
	promtool := lookTool(t, "promtool", "prometheus")
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboards\n    rules:\n")
	n := 0
	for file, d := range loadDashboards(t) {
		for key, expr := range dashboardQueries(d) {
			e := grafanaVariables.Replace(expr)
			if strings.Contains(e, "$") {
				t.Errorf("%s: %s: a variable is left after substitution: %s", file, key, e)
				continue
			}
			q, err := json.Marshal(e) // a JSON string is a YAML string
			if err != nil {
				t.Fatal(err)
			}
			n++
			fmt.Fprintf(&b, "      # %s: %s\n      - record: dashboard_query_%d\n        expr: %s\n", file, key, n, q)
		}
	}
	path := filepath.Join(t.TempDir(), "dashboards.rules.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runTool(t, ".", promtool, "check", "rules", path); err != nil {
		t.Errorf("promtool cannot parse some dashboard queries: %v\n%s", err, out)
	}
}
