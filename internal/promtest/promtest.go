// Package promtest holds checks of Prometheus expositions shared by tests.
package promtest

import (
	"bytes"
	"compress/gzip"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ParseText parses a text exposition (UTF-8 names allowed) or fails t.
func ParseText(tb testing.TB, b []byte) map[string]*dto.MetricFamily {
	tb.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("text exposition does not parse: %v\n%.3000s", err, b)
	}
	return mfs
}

// Labels returns a series' labels as a map, name to value.
func Labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// GunzipOne reads exactly one gzip member and fails t if anything follows.
func GunzipOne(tb testing.TB, b []byte) []byte {
	tb.Helper()
	br := bytes.NewReader(b)
	zr, err := gzip.NewReader(br)
	if err != nil {
		tb.Fatalf("not gzip: %v", err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("gzip member does not read to its end (CRC, size or deflate error): %v", err)
	}
	if err := zr.Close(); err != nil {
		tb.Fatal(err)
	}
	if br.Len() != 0 {
		tb.Fatalf("%d bytes follow the gzip member", br.Len())
	}
	return out
}

// CheckBlocks fails t unless each family is one block: HELP, TYPE, samples.
func CheckBlocks(tb testing.TB, b []byte) {
	tb.Helper()
	seen := map[string]bool{}
	cur, samples := "", 0
	end := func() {
		if cur != "" && samples == 0 {
			tb.Errorf("family %s has HELP and TYPE but no samples", cur)
		}
	}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "# HELP "):
			end()
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			if seen[name] {
				tb.Errorf("family %s appears twice (split across blocks)", name)
			}
			seen[name], cur, samples = true, name, 0
		case strings.HasPrefix(line, "# TYPE "):
			if name, _, _ := strings.Cut(strings.TrimPrefix(line, "# TYPE "), " "); name != cur {
				tb.Errorf("TYPE of %s not right after its HELP (in the block of %q)", name, cur)
			}
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			name := line
			if i := strings.IndexAny(line, "{ "); i >= 0 {
				name = line[:i]
			}
			if !slices.Contains([]string{cur, cur + "_bucket", cur + "_sum", cur + "_count"}, name) {
				tb.Errorf("sample %q outside the block of its family (in the block of %q)", name, cur)
			}
			samples++
		}
	}
	end()
}

// Gather returns the series of c's family name (pedantic registry), or nil.
func Gather(tb testing.TB, c prometheus.Collector, name string) []*dto.Metric {
	tb.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()
		}
	}
	return nil
}
