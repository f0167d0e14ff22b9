package e2e

// Reading what the exporter serves: GET, the text and OpenMetrics formats,
// series by name and labels, and the search for the API key in every
// output.

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

// getURL sends a GET with the headers hdr through c and returns the answer
// with its body.
func getURL(t *testing.T, c *http.Client, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp, body
}

// scrapeHeaders announces a scrape timeout, as Prometheus does; the
// exporter never waits for it.
var scrapeHeaders = map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "10"}

// scrape waits for /-/ready, as a user waits for the first data before
// reading a partial target, then GETs /metrics and parses the text format.
func (p *process) scrape(t *testing.T) ([]byte, map[string]*dto.MetricFamily) {
	t.Helper()
	eventually(t, time.Minute, "/-/ready is 200", func() string {
		if resp, body := p.get(t, "/-/ready", nil); resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("%d %s", resp.StatusCode, body)
		}
		return ""
	})
	resp, body := p.get(t, "/metrics", scrapeHeaders)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: status %d: %s", resp.StatusCode, body)
	}
	return body, promtest.ParseText(t, body)
}

// series returns the value of every gauge, counter and untyped series,
// keyed by name{sorted labels}.
func series(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			var v float64
			switch {
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Untyped != nil:
				v = m.GetUntyped().GetValue()
			default:
				continue
			}
			out[metricKey(name, m.GetLabel())] = v
		}
	}
	return out
}

// metricKey formats a series as name{a="x",b="y"} with sorted labels.
func metricKey(name string, labels []*dto.LabelPair) string {
	pairs := make([]string, 0, len(labels))
	for _, l := range labels {
		pairs = append(pairs, l.GetName()+"="+strconv.Quote(l.GetValue()))
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// key builds a series key from alternating label names and values.
func key(name string, kv ...string) string {
	var labels []*dto.LabelPair
	for i := 0; i+1 < len(kv); i += 2 {
		labels = append(labels, &dto.LabelPair{Name: &kv[i], Value: &kv[i+1]})
	}
	return metricKey(name, labels)
}

// gaugeValue returns the value of the gauge name with exactly the given
// labels (name, value pairs) in a text exposition.
func gaugeValue(t *testing.T, body, name string, labels ...string) (float64, bool) {
	t.Helper()
	// Parse only the family's lines: a large exposition parses slowly
	// under the race detector.
	var family strings.Builder
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") ||
			strings.HasPrefix(line, "# HELP "+name+" ") || strings.HasPrefix(line, "# TYPE "+name+" ") {
			family.WriteString(line)
		}
	}
	fams := promtest.ParseText(t, []byte(family.String()))
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range fams[name].GetMetric() {
		if maps.Equal(promtest.Labels(m), want) {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// visitorsFamilies are the families the visitors collector exports.
var visitorsFamilies = []string{
	"mintlify_visitors", "mintlify_visitors_deduplicated",
	"mintlify_page_visitors", "mintlify_page_visitors_deduplicated",
	"mintlify_visitors_paths", "mintlify_visitors_paths_exported",
}

// familyText renders the named families as text with their series sorted,
// for comparing two scrapes; a missing family renders as a marker.
func familyText(t *testing.T, fams map[string]*dto.MetricFamily, names ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, n := range names {
		mf, ok := fams[n]
		if !ok {
			fmt.Fprintf(&b, "# missing %s\n", n)
			continue
		}
		type keyed struct {
			key string
			m   *dto.Metric
		}
		ms := make([]keyed, len(mf.Metric))
		for i, m := range mf.Metric {
			ms[i] = keyed{metricKey(n, m.GetLabel()), m}
		}
		slices.SortFunc(ms, func(x, y keyed) int { return strings.Compare(x.key, y.key) })
		sorted := &dto.MetricFamily{Name: mf.Name, Help: mf.Help, Type: mf.Type, Metric: make([]*dto.Metric, len(ms))}
		for i, k := range ms {
			sorted.Metric[i] = k.m
		}
		if _, err := expfmt.MetricFamilyToText(&b, sorted); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// compareFamilies checks that two scrapes have the same families, and the
// same series and values in every mintlify_ family.
func compareFamilies(t *testing.T, want, got map[string]*dto.MetricFamily) {
	t.Helper()
	names := func(m map[string]*dto.MetricFamily) []string {
		var out []string
		for n, mf := range m {
			out = append(out, n+" "+mf.GetType().String())
		}
		sort.Strings(out)
		return out
	}
	if a, b := names(want), names(got); !slices.Equal(a, b) {
		t.Errorf("families differ:\n plain %q\n gzip  %q", a, b)
	}
	var mintlify []string
	for n := range want {
		if strings.HasPrefix(n, "mintlify_") {
			mintlify = append(mintlify, n)
		}
	}
	sort.Strings(mintlify)
	if len(mintlify) < len(visitorsFamilies) {
		t.Fatalf("only %d mintlify_ families", len(mintlify))
	}
	for _, n := range mintlify {
		if a, b := familyText(t, want, n), familyText(t, got, n); a != b {
			t.Errorf("family %s differs", n)
		}
	}
}

// parseOpenMetricsGauges parses the gauge families of an OpenMetrics
// answer. For gauges the OpenMetrics text is the Prometheus text format
// plus "# EOF"; other families are left out. A family is the block of lines
// from its "# HELP" line to the next one (OpenMetrics names a counter family
// without its _total suffix, so names alone do not tell families apart).
func parseOpenMetricsGauges(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	var keep bytes.Buffer
	var block []string
	flush := func() {
		for _, l := range block {
			if f := strings.Fields(l); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && f[3] == "gauge" {
				keep.WriteString(strings.Join(block, "\n") + "\n")
				break
			}
		}
		block = nil
	}
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "# HELP ") || l == "# EOF" {
			flush()
		}
		if l != "" && l != "# EOF" {
			block = append(block, l)
		}
	}
	flush()
	return promtest.ParseText(t, keep.Bytes())
}

// assertNoSecret fails when any of secrets appears in any of texts (named
// by what they are), showing where.
func assertNoSecret(t *testing.T, texts map[string]string, secrets ...string) {
	t.Helper()
	for name, text := range texts {
		for _, s := range secrets {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s contains the secret %q: …%s…", name, s[:min(9, len(s))], text[max(0, i-80):min(len(text), i+80)])
			}
		}
	}
}

// defaultKeyMark is the fake's default key without its "mint_" prefix:
// what no output may contain.
var defaultKeyMark = strings.TrimPrefix(mintlifytest.DefaultKey, "mint_")
