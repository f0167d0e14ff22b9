package backfill

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// StreamHistory collects the counters of a history from the event stream
// (stream.History), step by step, and writes them as OpenMetrics: the live
// counter families and labels, the target labels first, each sample
// stamped with its step's event time. Every series has a value at every
// step from its first one (so rate() sees no gaps); memory is 8 bytes per
// series and step.
type StreamHistory struct {
	labels []Label
	steps  []int64 // unix seconds
	series map[string]*streamSeries
}

// streamSeries is one counter series of a StreamHistory.
type streamSeries struct {
	name   string
	values []string // label values, project first: the sort key
	labels string   // rendered {...}
	first  int      // index of its first step
	points []float64
}

// NewStreamHistory returns an empty history whose series carry labels
// (MergeLabels' result). It refuses a target label that clashes with a
// stream family's own.
func NewStreamHistory(labels []Label) (*StreamHistory, error) {
	names, _, famLabels := stream.HistoryFamilies()
	own := map[string][]string{}
	for i, n := range names {
		own[n] = famLabels[i]
	}
	if err := checkLabels(labels, own); err != nil {
		return nil, err
	}
	return &StreamHistory{labels: labels, series: map[string]*streamSeries{}}, nil
}

// Add records one step: at and the cumulative value of every series seen
// so far (stream.History's emit). Steps must come in increasing time.
func (h *StreamHistory) Add(at time.Time, samples []stream.Sample) error {
	ts := at.Unix()
	if n := len(h.steps); n > 0 && ts <= h.steps[n-1] {
		return fmt.Errorf("stream history: step %s is not after the previous one", at.UTC().Format(time.RFC3339))
	}
	idx := len(h.steps)
	h.steps = append(h.steps, ts)
	for _, s := range samples {
		text := streamLabels(h.labels, s.Labels, s.Values)
		k := s.Name + text
		se := h.series[k]
		if se == nil {
			se = &streamSeries{name: s.Name, values: s.Values, labels: text, first: idx}
			h.series[k] = se
		}
		se.points = append(se.points, s.Value)
	}
	for _, se := range h.series { // a counter seen once has a value at every later step
		if want := idx - se.first + 1; len(se.points) < want {
			se.points = append(se.points, se.points[len(se.points)-1])
		}
	}
	return nil
}

// Series is the number of series so far.
func (h *StreamHistory) Series() int { return len(h.series) }

// WriteFile writes the history to path (--output) atomically.
func (h *StreamHistory) WriteFile(path string) error {
	return writeAtomic(path, h.render)
}

// render writes the families in stream.HistoryFamilies' order, series by
// label values, samples by time, "# EOF" last.
func (h *StreamHistory) render(w io.Writer) error {
	names, helps, _ := stream.HistoryFamilies()
	byName := map[string][]*streamSeries{}
	for _, se := range h.series {
		byName[se.name] = append(byName[se.name], se)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for i, name := range names {
		ss := byName[name]
		if len(ss) == 0 {
			continue
		}
		base := strings.TrimSuffix(name, "_total")
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s counter\n", base, escaper.Replace(helps[i]), base)
		slices.SortFunc(ss, func(a, b *streamSeries) int { return slices.Compare(a.values, b.values) })
		for _, se := range ss {
			for j, v := range se.points {
				bw.WriteString(name)
				bw.WriteString(se.labels)
				bw.WriteByte(' ')
				bw.WriteString(formatValue(v))
				bw.WriteByte(' ')
				bw.WriteString(strconv.FormatInt(h.steps[se.first+j], 10))
				bw.WriteByte('\n')
			}
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

// streamLabels renders a stream series' label set: the target labels,
// then the family's own labels (project first).
func streamLabels(target []Label, names, values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, l := range target {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.Name + `="` + escaper.Replace(l.Value) + `"`)
	}
	for i, n := range names {
		if i > 0 || len(target) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + `="` + escaper.Replace(values[i]) + `"`)
	}
	b.WriteByte('}')
	return b.String()
}
