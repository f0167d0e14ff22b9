package e2e

// The README's metric table against a demo scrape of the real binary.

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// fullDemoScrape scrapes a ready demo exporter with every optional source
// and the remediation webhook on: every family the binary can serve but the
// key file's (which --demo has no use for).
func fullDemoScrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	p := startExporter(t, nil, "--demo", "--collector.conversations", "--searches.top-terms=10", "--collector.jobs",
		"--remediation.config=../deploy/remediation/remediation.yml")
	eventually(t, 30*time.Second, "the demo exporter ready", func() string {
		if err := httpOK("http://" + p.addr + "/-/ready"); err != nil {
			return err.Error()
		}
		return ""
	})
	_, fams := p.scrape(t)
	return fams
}

// TestHelpIsOneSentence: the HELP of every family of the exporter's own
// says what the series is in one sentence (no ". " or "; " inside, no line
// break) of at most 120 characters, as node_exporter's do; what to do with
// it is in the README's metric table and docs/. The go_, process_ and
// promhttp_ families are client_golang's; mintlify_exporter_build_info's
// text is prometheus/common/version's, the one every exporter shares, held
// to one sentence but not to the length.
func TestHelpIsOneSentence(t *testing.T) {
	t.Parallel()
	fams := fullDemoScrape(t)
	n := 0
	for name, mf := range fams {
		if !strings.HasPrefix(name, "mintlify_") {
			continue
		}
		n++
		help := mf.GetHelp()
		switch {
		case help == "":
			t.Errorf("%s has no HELP", name)
		case strings.Contains(strings.TrimSuffix(help, "."), ". "), strings.Contains(help, "; "), strings.Contains(help, "\n"):
			t.Errorf("%s: HELP is more than one sentence (the explanation goes in the README's metric table): %q", name, help)
		case len(help) > 120 && name != "mintlify_exporter_build_info":
			t.Errorf("%s: HELP is %d characters, want at most 120: %q", name, len(help), help)
		}
	}
	if n < 35 {
		t.Fatalf("the scrape has %d mintlify_ families, want every source's", n)
	}
}

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
	fams := fullDemoScrape(t)
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
