package backfill

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// formatValue renders a sample value as the output writes it: integers
// without exponent, other values (NaN and ±Inf too) in Go's shortest form.
func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func validValue(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && formatValue(v) == s
}

var escaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

type outFamily struct {
	name, help string
	labels     []string
	rank       [2]int // source order, family order within the source
	series     map[string]*outSeries
}

type outSeries struct {
	sortKey []string // project, then the family's own label values
	labels  string   // rendered {...}
	points  map[int64]string
}

// render writes entries as OpenMetrics: families in sources' order, series by
// label values, samples by time, "# EOF" last. The order ignores the entries',
// so a resumed run writes the bytes of an uninterrupted one.
func render(w io.Writer, entries []*entry, sources []string, labels []Label) error {
	fams := map[string]*outFamily{}
	target := "{" // the label set: target labels, project, window, the family's own
	for _, l := range labels {
		target += l.Name + `="` + escaper.Replace(l.Value) + `",`
	}
	for _, e := range entries {
		ts, common := e.stamp(), target+`project="`+escaper.Replace(e.Project)+`",window="`+Window+`"`
		srank := rank(sources, e.Source)
		for fi, f := range e.Families {
			of := fams[f.Name]
			if of == nil {
				of = &outFamily{name: f.Name, help: f.Help, labels: f.Labels, rank: [2]int{srank, fi}, series: map[string]*outSeries{}}
				fams[f.Name] = of
			}
			if !slices.Equal(of.labels, f.Labels) {
				return fmt.Errorf("journal: family %s has labels %v and %v", f.Name, of.labels, f.Labels)
			}
			for _, s := range f.Series {
				var b strings.Builder
				b.WriteString(common)
				for i, n := range f.Labels {
					b.WriteString(`,` + n + `="` + escaper.Replace(s.L[i]) + `"`)
				}
				text := b.String() + "}"
				se := of.series[text]
				if se == nil {
					se = &outSeries{sortKey: append([]string{e.Project}, s.L...), labels: text, points: map[int64]string{}}
					of.series[text] = se
				}
				se.points[ts] = s.V
			}
		}
	}
	order := slices.DeleteFunc(slices.Collect(maps.Values(fams)), func(f *outFamily) bool { return len(f.series) == 0 })
	slices.SortFunc(order, func(a, b *outFamily) int {
		return cmp.Or(slices.Compare(a.rank[:], b.rank[:]), strings.Compare(a.name, b.name))
	})
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, f := range order {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s gauge\n", f.name, escaper.Replace(f.help), f.name)
		for _, s := range slices.SortedFunc(maps.Values(f.series), func(a, b *outSeries) int { return slices.Compare(a.sortKey, b.sortKey) }) {
			for _, t := range slices.Sorted(maps.Keys(s.points)) {
				fmt.Fprintf(bw, "%s%s %s %d\n", f.name, s.labels, s.points[t], t)
			}
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

// writeAtomic writes path (--output) atomically, as statefile.WriteFile.
func writeAtomic(path string, write func(io.Writer) error) error {
	if err := statefile.WriteFile(path, 0o644, write); err != nil {
		return fmt.Errorf("writing --output %s: %w", path, err)
	}
	return nil
}
