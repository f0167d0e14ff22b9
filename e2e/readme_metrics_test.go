package e2e

// The README's metric table against a demo scrape of the real binary.

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// metricRow is one row of the README's metric table.
type metricRow struct {
	names     []string
	labels    []string
	condition bool // the meaning starts "with …" or "deprecated": the series may be absent from a default scrape
}

var (
	metricRowLine = regexp.MustCompile("^\\| (`mintlify_[^|]*)\\|([^|]*)\\|(.*)\\|$")
	backticked    = regexp.MustCompile("`([a-z_]+)`")
)

// readmeMetricRows parses the metric table of README.md.
func readmeMetricRows(t *testing.T) []metricRow {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []metricRow
	for _, line := range strings.Split(string(b), "\n") {
		m := metricRowLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r := metricRow{}
		for _, n := range backticked.FindAllStringSubmatch(m[1], -1) {
			r.names = append(r.names, n[1])
		}
		for _, l := range strings.Split(m[2], ",") {
			if l = strings.TrimSpace(l); l != "" {
				r.labels = append(r.labels, l)
			}
		}
		meaning := strings.TrimSpace(m[3])
		r.condition = strings.HasPrefix(meaning, "with ") || strings.HasPrefix(meaning, "deprecated")
		rows = append(rows, r)
	}
	if len(rows) < 20 {
		t.Fatalf("README.md: %d metric rows found, the table's format changed", len(rows))
	}
	return rows
}

// TestReadmeMetricTable: every family a demo scrape (with every optional
// source on) serves has a row in the README's metric table with its labels,
// and every row names a family the scrape serves, unless the row says under
// which condition it exists.
func TestReadmeMetricTable(t *testing.T) {
	t.Parallel()
	p := startExporter(t, nil, "--demo", "--collector.conversations", "--searches.top-terms=10", "--collector.jobs")
	eventually(t, 30*time.Second, "the demo exporter ready", func() string {
		if err := httpOK("http://" + p.addr + "/-/ready"); err != nil {
			return err.Error()
		}
		return ""
	})
	_, fams := p.scrape(t)
	rows := readmeMetricRows(t)
	documented := map[string]metricRow{}
	for _, r := range rows {
		for _, n := range r.names {
			documented[n] = r
		}
	}
	for name, mf := range fams {
		if !strings.HasPrefix(name, "mintlify_") {
			continue
		}
		r, ok := documented[name]
		if !ok {
			t.Errorf("README.md's metric table lacks %s", name)
			continue
		}
		var labels []string
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if !slices.Contains(labels, l.GetName()) {
					labels = append(labels, l.GetName())
				}
			}
		}
		slices.Sort(labels)
		want := slices.Sorted(slices.Values(r.labels))
		if !slices.Equal(labels, want) {
			t.Errorf("%s: the scrape has labels %v, README.md says %v", name, labels, want)
		}
	}
	for name, r := range documented {
		if _, ok := fams[name]; !ok && !r.condition {
			t.Errorf("README.md documents %s, which the demo scrape does not serve (and the row names no condition: \"with …\")", name)
		}
	}
}
