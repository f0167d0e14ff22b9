// Package promtest holds the checks of Prometheus expositions that the
// tests of several packages make (the engine's pre-rendered exposition, the
// /metrics handler): parsing the text format, reading a series' labels,
// reading one gzip member, and checking that every family is one block.
//
// It is imported by tests only.
package promtest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ParseText parses a text exposition (format 0.0.4, UTF-8 names allowed),
// failing the test when it does not parse.
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

// GunzipOne reads exactly one gzip member, checking its CRC and size, and
// fails the test when anything follows it.
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

// CheckBlocks fails the test unless every family of a text exposition is
// one block: exactly one HELP line, then its TYPE line, then all of its
// samples, at least one. A sample belongs to the block of its family's
// name, or of that name without a _bucket, _sum or _count suffix
// (histograms and summaries). Other comments and blank lines are ignored.
func CheckBlocks(tb testing.TB, b []byte) {
	tb.Helper()
	seen := map[string]bool{}
	cur, samples := "", 0
	end := func() {
		if cur != "" && samples == 0 {
			tb.Errorf("family %s has HELP and TYPE but no samples", cur)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
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
			if !sampleOf(name, cur) {
				tb.Errorf("sample %q outside the block of its family (in the block of %q)", name, cur)
			}
			samples++
		}
	}
	end()
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
}

// sampleOf reports whether a sample named name belongs to family.
func sampleOf(name, family string) bool {
	if name == family {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if strings.TrimSuffix(name, suffix) == family && strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// Gather returns the series of the metric family name that c collects,
// through a pedantic registry (which checks c's descriptions too); nil
// when c has no such family.
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
