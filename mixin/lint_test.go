package mixin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dashboardFile is what the lint tests read of a generated dashboard.
type dashboardFile struct {
	Templating struct {
		List []struct {
			Name     string `json:"name"`
			Label    string `json:"label"`
			Type     string `json:"type"`
			Multi    bool   `json:"multi"`
			AllValue string `json:"allValue"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// readDashboards decodes every dashboard in dashboards/.
func readDashboards(t *testing.T) map[string]dashboardFile {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "dashboards", "*.json"))
	if len(files) == 0 {
		t.Fatal("no dashboards in ../dashboards")
	}
	out := map[string]dashboardFile{}
	for _, f := range files {
		var d dashboardFile
		if err := json.Unmarshal(readFile(t, f), &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = d
	}
	return out
}

// TestDashboardLinterTemplates: the job and instance variables follow
// dashboard-linter's template rules (named and labelled job and instance,
// multi-select, a query, allValue ".+"), with no exception in
// dashboards/.lint: the queries' instance=~"$instance|" keeps backfilled
// series, which have no instance, under any selection.
func TestDashboardLinterTemplates(t *testing.T) {
	for file, d := range readDashboards(t) {
		found := map[string]bool{}
		for _, v := range d.Templating.List {
			if v.Name != "job" && v.Name != "instance" {
				continue
			}
			found[v.Name] = true
			if v.Label != v.Name || v.Type != "query" || !v.Multi {
				t.Errorf("%s: variable %s: label %q, type %q, multi %v; want label %s, a query, multi-select", file, v.Name, v.Label, v.Type, v.Multi, v.Name)
			}
			if v.AllValue != ".+" {
				t.Errorf("%s: variable %s: allValue %q, want dashboard-linter's .+", file, v.Name, v.AllValue)
			}
		}
		if !found["job"] || !found["instance"] {
			t.Errorf("%s: variables %v, want job and instance", file, found)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "dashboards", ".lint")); !os.IsNotExist(err) {
		t.Errorf("dashboards/.lint exists (%v): the dashboards need no exception to dashboard-linter's rules", err)
	}
}

// TestPerJobTablesBounded: a panel with a row per agent job shows the topk,
// not every job --jobs.discover watches (thousands).
func TestPerJobTablesBounded(t *testing.T) {
	n := 0
	for file, d := range readDashboards(t) {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				if !strings.Contains(tg.Expr, "mintlify_agent_job_info") || strings.Contains(tg.Expr, "count") || strings.Contains(tg.Expr, "sum") {
					continue
				}
				n++
				if !strings.HasPrefix(tg.Expr, "topk(") {
					t.Errorf("%s: panel %q lists every job: %s", file, p.Title, tg.Expr)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no panel lists agent jobs; the test looks for mintlify_agent_job_info")
	}
}

// readFile returns a file's content, failing the test when it cannot.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
