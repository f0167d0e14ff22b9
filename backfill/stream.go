package backfill

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/prompb"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// StreamHistory collects the counters of a history from the event stream
// (stream.History), step by step, and writes them as OpenMetrics: the live
// counter families and labels, the target labels first, each sample
// stamped with its step's event time, and the visitor gauges once a day.
// Every counter series has a value at every
// step from its first one (so rate() sees no gaps); memory is 8 bytes per
// series and step.
type StreamHistory struct {
	labels []Label
	steps  []int64 // unix seconds
	series map[string]*streamSeries
	gauges map[string]*gaugeSeries // the visitor gauges, one sample a day
}

// gaugeSeries is one visitor gauge series of a StreamHistory.
type gaugeSeries struct {
	values []string
	labels string
	ts     []int64 // unix seconds, increasing
	points []float64
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
	return &StreamHistory{labels: labels, series: map[string]*streamSeries{}, gauges: map[string]*gaugeSeries{}}, nil
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
		if s.Gauge {
			g := h.gauges[text]
			if g == nil {
				g = &gaugeSeries{values: s.Values, labels: text}
				h.gauges[text] = g
			}
			if t := s.At.Unix(); len(g.ts) == 0 || t > g.ts[len(g.ts)-1] {
				g.ts, g.points = append(g.ts, t), append(g.points, s.Value)
			}
			continue
		}
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
	if len(h.gauges) > 0 {
		name, help, _ := stream.VisitorsFamily()
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s gauge\n", name, escaper.Replace(help), name)
		for _, g := range h.sortedGauges() {
			for j, v := range g.points {
				fmt.Fprintf(bw, "%s%s %s %d\n", name, g.labels, formatValue(v), g.ts[j])
			}
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

func (h *StreamHistory) sortedGauges() []*gaugeSeries {
	gs := make([]*gaugeSeries, 0, len(h.gauges))
	for _, g := range h.gauges {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *gaugeSeries) int { return slices.Compare(a.values, b.values) })
	return gs
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

// StreamStep is the time between two samples of a history from the event
// stream: its counters' resolution, in event time.
const StreamStep = 5 * time.Minute

// StreamConfig configures a backfill from the event stream.
type StreamConfig struct {
	// From and To are the first and last day, both included (Days).
	From, To client.Date
	// Output is the OpenMetrics file to write; an existing one is
	// replaced only with Force; Protected as in Config.
	Output    string
	Force     bool
	Protected map[string]string
	// RemoteWrite, instead of Output, sends the samples (no journal: a
	// failed run is run again whole).
	RemoteWrite *RemoteWriter
	// Labels are the target labels every series carries (MergeLabels).
	Labels []Label
	// Stream is the source's configuration (Store, Prefix, Projects,
	// caps, rules, event map, Logger); its poll settings do not apply.
	Stream stream.Config
	// Now defaults to time.Now; Out receives the report (nil discards).
	Now func() time.Time
	Out io.Writer
}

// RunStream writes the stream's counters over the days From..To to
// Output: every object of the bucket is read once, whatever its key; no
// API request is sent.
func RunStream(ctx context.Context, cfg StreamConfig) error {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	days, err := Days(cfg.From, cfg.To, cfg.Now())
	if err != nil {
		return err
	}
	switch {
	case cfg.Output == "" && cfg.RemoteWrite == nil:
		return errors.New("--output or --remote-write.url is required: the OpenMetrics file to write, or the receiver to send to")
	case cfg.Output != "" && cfg.RemoteWrite != nil:
		return errors.New("--output and --remote-write.url exclude each other: give one")
	case cfg.Output != "":
		if st, err := os.Stat(filepath.Dir(cfg.Output)); err != nil || !st.IsDir() {
			return fmt.Errorf("--output %s: the directory %s does not exist", cfg.Output, filepath.Dir(cfg.Output))
		}
		if err := checkReplaceable(cfg.Output, cfg.Protected); err != nil {
			return fmt.Errorf("--output %s: %v", cfg.Output, err)
		}
		if exists(cfg.Output) && !cfg.Force {
			return fmt.Errorf("--output %s exists: add --force to replace it, or choose another file", cfg.Output)
		}
	}
	h, err := NewStreamHistory(cfg.Labels)
	if err != nil {
		return err
	}
	from, to := days[0].Time(), days[len(days)-1].AddDays(1).Time()
	stats, err := stream.History(ctx, cfg.Stream, from, to, StreamStep, h.Add)
	if err != nil {
		return err
	}
	report := func() {
		fmt.Fprintf(cfg.Out, "stream: %d objects read, %d lines, %d events counted from %s to %s (%d outside the range, %d duplicates dropped), %d lines refused, %d objects skipped\n",
			stats.Objects, stats.Lines, stats.Events, from.Format(time.DateOnly), days[len(days)-1], stats.OutOfRange, stats.Duplicates, sum(stats.Refused), sum(stats.Skipped))
	}
	if cfg.RemoteWrite != nil {
		report()
		n, reqs, err := h.Send(ctx, cfg.RemoteWrite, func(err error) {
			fmt.Fprintf(cfg.Out, "remote write: retrying: %s\n", oneLine(cfg.RemoteWrite.scrub(err.Error()), 200))
		})
		fmt.Fprintf(cfg.Out, "sent %d samples of %d series in %d requests to %s, a sample every %s of event time\n", n, h.Series(), reqs, cfg.RemoteWrite.URL(), StreamStep)
		return err
	}
	if err := h.WriteFile(cfg.Output); err != nil {
		return err
	}
	report()
	fmt.Fprintf(cfg.Out, "wrote %s: %d series, a sample every %s of event time; load it with: promtool tsdb create-blocks-from openmetrics %s DATA_DIR\n",
		cfg.Output, h.Series(), StreamStep, cfg.Output)
	return nil
}

func sum(m map[string]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

// Send sends the history by remote write in time order: each request holds
// every series' samples of a run of steps (at most MaxSamplesPerRequest
// samples, or one step), so no series goes back in time from one request
// to the next. It returns the samples and requests sent.
func (h *StreamHistory) Send(ctx context.Context, w *RemoteWriter, onRetry func(error)) (samples, requests int, err error) {
	w.whole = true
	names, helps, _ := stream.HistoryFamilies()
	var meta []prompb.MetricMetadata
	for i, n := range names {
		meta = append(meta, prompb.MetricMetadata{Type: prompb.MetricMetadata_COUNTER, MetricFamilyName: strings.TrimSuffix(n, "_total"), Help: helps[i]})
	}
	ss := make([]*streamSeries, 0, len(h.series))
	for _, se := range h.series {
		ss = append(ss, se)
	}
	slices.SortFunc(ss, func(a, b *streamSeries) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return slices.Compare(a.values, b.values)
	})
	labels := make([][]prompb.Label, len(ss))
	active := make([]int, len(h.steps)+1) // series with a sample at each step
	for i, se := range ss {
		names := famLabelNames(se.name)
		ls := []prompb.Label{{Name: model.MetricNameLabel, Value: se.name}}
		for _, l := range h.labels {
			ls = append(ls, prompb.Label{Name: l.Name, Value: l.Value})
		}
		for j, n := range names {
			ls = append(ls, prompb.Label{Name: n, Value: se.values[j]})
		}
		slices.SortFunc(ls, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
		labels[i] = ls
		active[se.first]++
	}
	for i := 1; i < len(h.steps); i++ {
		active[i] += active[i-1]
	}
	vname, vhelp, vlabels := stream.VisitorsFamily()
	meta = append(meta, prompb.MetricMetadata{Type: prompb.MetricMetadata_GAUGE, MetricFamilyName: vname, Help: vhelp})
	gauges := h.sortedGauges()
	glabels := make([][]prompb.Label, len(gauges))
	for i, g := range gauges {
		ls := []prompb.Label{{Name: model.MetricNameLabel, Value: vname}}
		for _, l := range h.labels {
			ls = append(ls, prompb.Label{Name: l.Name, Value: l.Value})
		}
		for j, n := range vlabels {
			ls = append(ls, prompb.Label{Name: n, Value: g.values[j]})
		}
		slices.SortFunc(ls, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
		glabels[i] = ls
	}
	gnext := make([]int, len(gauges)) // next gauge sample to send, by series
	for start := 0; start < len(h.steps); {
		end, n := start, 0
		for end < len(h.steps) && (end == start || n+active[end] <= MaxSamplesPerRequest) {
			n += active[end]
			end++
		}
		if n > 0 {
			req := &prompb.WriteRequest{Metadata: meta}
			for i, se := range ss {
				from := max(start, se.first)
				if from >= end {
					continue
				}
				ts := prompb.TimeSeries{Labels: labels[i]}
				for k := from; k < end; k++ {
					ts.Samples = append(ts.Samples, prompb.Sample{Value: se.points[k-se.first], Timestamp: h.steps[k] * 1000})
				}
				req.Timeseries = append(req.Timeseries, ts)
			}
			for i, g := range gauges { // the days that end within these steps, in time order
				ts := prompb.TimeSeries{Labels: glabels[i]}
				for ; gnext[i] < len(g.ts) && g.ts[gnext[i]] <= h.steps[end-1]; gnext[i]++ {
					ts.Samples = append(ts.Samples, prompb.Sample{Value: g.points[gnext[i]], Timestamp: g.ts[gnext[i]] * 1000})
				}
				if len(ts.Samples) > 0 {
					req.Timeseries = append(req.Timeseries, ts)
					n += len(ts.Samples)
				}
			}
			if err := w.send(ctx, req, onRetry); err != nil {
				return samples, requests, err
			}
			samples += n
			requests++
		}
		start = end
	}
	return samples, requests, nil
}

// famLabelNames is the label names of a stream counter family.
func famLabelNames(name string) []string {
	names, _, labels := stream.HistoryFamilies()
	return labels[slices.Index(names, name)]
}
