// Package exposition renders metric families to the text format (0.0.4) once
// per refresh, with a deflate copy, so that a scrape only concatenates bytes.
package exposition

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Chunk is a piece of text exposition with its deflate segment: sync-flushed
// raw blocks without a final block, so segments concatenate into one stream.
type Chunk struct {
	text    []byte
	deflate []byte
}

// flateWriters recycles compressors: each holds about 1 MiB of state. The
// level favours CPU: a refresh may carry hundreds of thousands of series.
var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed) // level is valid
	return w
}}

func getFlateWriter(dst io.Writer) *flate.Writer {
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(dst)
	return w
}

func putFlateWriter(w *flate.Writer) {
	w.Reset(io.Discard) // do not keep dst alive in the pool
	flateWriters.Put(w)
}

func newChunk(text []byte) Chunk {
	var buf bytes.Buffer
	w := getFlateWriter(&buf)
	_, _ = w.Write(text) // writes to a bytes.Buffer do not fail
	_ = w.Flush()
	putFlateWriter(w)
	// The chunk lives until the next refresh: keep no slack.
	return Chunk{text: text, deflate: bytes.Clone(buf.Bytes())}
}

// Header renders a gauge family's "# HELP" and "# TYPE" lines.
func Header(name, help string) Chunk {
	return newChunk([]byte("# HELP " + name + " " + helpEscaper.Replace(help) + "\n# TYPE " + name + " gauge\n"))
}

// Series renders a family's series for one project and window, without
// headers, sized exactly: the text lives until the next refresh.
func Series(name string, labels []string, project, window string, samples []Sample) Chunk {
	if len(samples) == 0 {
		return Chunk{}
	}
	// The labels sorted, as client_golang writes them (so both scrape paths
	// carry identical series); lit is what precedes a label's value, value
	// is project's or window's (escaped once), slot the index of a sample's own.
	type label struct {
		lit, value string
		slot       int
	}
	order := []label{{"project", labelEscaper.Replace(project), -1}, {"window", labelEscaper.Replace(window), -1}}
	for i, l := range labels {
		order = append(order, label{lit: l, slot: i})
	}
	slices.SortFunc(order, func(a, b label) int { return strings.Compare(a.lit, b.lit) })
	sep, fixed := name+"{", len(`"} `+"\n")
	for k := range order {
		order[k].lit, sep = sep+order[k].lit+`="`, `",`
		fixed += len(order[k].lit) + len(order[k].value)
	}
	var num [32]byte
	size := 0
	for _, s := range samples {
		size += fixed + len(appendValue(num[:0], s.Value))
		for _, l := range order {
			if l.slot >= 0 {
				size += len(labelEscaper.Replace(s.Labels[l.slot]))
			}
		}
	}
	b := make([]byte, 0, size)
	for _, s := range samples {
		for _, l := range order {
			if l.slot >= 0 {
				l.value = labelEscaper.Replace(s.Labels[l.slot])
			}
			b = append(b, l.lit...)
			b = append(b, l.value...)
		}
		b = append(b, `"} `...)
		b = appendValue(b, s.Value)
		b = append(b, '\n')
	}
	return newChunk(b)
}

// appendValue writes whole numbers as integers, others as client_golang does.
func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case v == math.Trunc(v) && math.Abs(v) < 1<<53:
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// The escapers return a string that needs no escaping as it is, without allocating.
var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

// MaxLabels is the most labels a family may have besides project and window.
const MaxLabels = 2

// Sample is one series: its own label values (in Family.Labels order) and value.
type Sample struct {
	Labels [MaxLabels]string
	Value  float64
}

// MarshalJSON writes ["/quickstart", "human", 12]: the label values without
// empty trailing ones, then the value.
func (s Sample) MarshalJSON() ([]byte, error) {
	n := MaxLabels
	for n > 0 && s.Labels[n-1] == "" {
		n--
	}
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		return nil, fmt.Errorf("sample value %v cannot be saved", s.Value)
	}
	out := make([]any, 0, n+1)
	for _, l := range s.Labels[:n] {
		out = append(out, l)
	}
	return json.Marshal(append(out, s.Value))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Sample) UnmarshalJSON(b []byte) error {
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	if len(parts) == 0 || len(parts) > MaxLabels+1 {
		return errors.New("a sample is an array of up to 2 label values and a value")
	}
	*s = Sample{}
	for i, p := range parts[:len(parts)-1] {
		if err := json.Unmarshal(p, &s.Labels[i]); err != nil {
			return fmt.Errorf("sample label %d: %w", i, err)
		}
	}
	return json.Unmarshal(parts[len(parts)-1], &s.Value)
}

// Empty reports whether c holds no series.
func (c Chunk) Empty() bool { return len(c.text) == 0 }

// Exposition is the immutable pre-rendered exposition of every unit, one
// block per family; a refresh builds a new one and swaps it in.
type Exposition struct {
	chunks  []Chunk
	textLen int
	crc     uint32
}

// Add appends c; an empty chunk adds nothing.
func (e *Exposition) Add(c Chunk) {
	if len(c.text) == 0 {
		return
	}
	e.chunks = append(e.chunks, c)
	e.crc = crc32.Update(e.crc, crc32.IEEETable, c.text)
	e.textLen += len(c.text)
}

// TextLen is the length of the text exposition in bytes.
func (e *Exposition) TextLen() int { return e.textLen }

// WriteText writes the text exposition.
func (e *Exposition) WriteText(w io.Writer) error {
	for _, c := range e.chunks {
		if _, err := w.Write(c.text); err != nil {
			return err
		}
	}
	return nil
}

// gzipHeader is a minimal gzip member header: no name, no mtime, OS unknown.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// WriteGzip writes one gzip member of the pre-rendered text and tail (the
// live part), compressing only tail.
func (e *Exposition) WriteGzip(w io.Writer, tail []byte) error {
	if _, err := w.Write(gzipHeader); err != nil {
		return err
	}
	for _, c := range e.chunks {
		if _, err := w.Write(c.deflate); err != nil {
			return err
		}
	}
	fw := getFlateWriter(w)
	defer putFlateWriter(fw)
	if _, err := fw.Write(tail); err != nil {
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc32.Update(e.crc, crc32.IEEETable, tail))
	binary.LittleEndian.PutUint32(trailer[4:], uint32(e.textLen+len(tail)))
	_, err := w.Write(trailer[:])
	return err
}

// SanitizeLabel makes text from the API a valid label value (invalid UTF-8
// would fail the whole scrape). Every label value from an answer goes through it.
func SanitizeLabel(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
