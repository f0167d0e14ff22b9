package collector

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
)

// The visitors families, in the order they are rendered. Each one is
// rendered whole in the pre-rendered part of a scrape and never appears in
// the live part.
const (
	famVisitors = iota
	famVisitorsDedup
	famPageVisitors
	famPageVisitorsDedup
	famPaths
	famPathsExported
	numFamilies
)

type familyInfo struct {
	name, help string
	labels     []string
}

// visitorsFamilies describes the visitors families; their HELP strings say
// the values are cached and over which window.
var visitorsFamilies = [numFamilies]familyInfo{
	famVisitors: {"mintlify_visitors",
		"Site-wide unique visitors of the project over the window (the last N calendar days in UTC, today included), by traffic (human or ai). Cached: read from the API at most every mintlify_refresh_interval_seconds.",
		[]string{"project", "window", "traffic"}},
	famVisitorsDedup: {"mintlify_visitors_deduplicated",
		"Site-wide unique visitors of the project over the window, deduplicated across human and AI traffic (not the sum of the two). Cached: read from the API at most every mintlify_refresh_interval_seconds.",
		[]string{"project", "window"}},
	famPageVisitors: {"mintlify_page_visitors",
		"Unique visitors of one page over the window, by traffic (human or ai). Unique counts are not additive: do not sum pages. Cached: read from the API at most every mintlify_refresh_interval_seconds.",
		[]string{"project", "window", "path", "traffic"}},
	famPageVisitorsDedup: {"mintlify_page_visitors_deduplicated",
		"Unique visitors of one page over the window, deduplicated across human and AI traffic. Unique counts are not additive: do not sum pages. Cached: read from the API at most every mintlify_refresh_interval_seconds.",
		[]string{"project", "window", "path"}},
	famPaths: {"mintlify_visitors_paths",
		"Distinct paths the API returned for the project and window at the last refresh.",
		[]string{"project", "window"}},
	famPathsExported: {"mintlify_visitors_paths_exported",
		"Paths exported for the project and window after --visitors.path-include/-exclude and --visitors.max-paths.",
		[]string{"project", "window"}},
}

// familyHeaders holds, per family, the "# HELP" and "# TYPE" lines as text
// and as an independent deflate segment.
var familyHeaders [numFamilies]chunk

func init() {
	for i, f := range visitorsFamilies {
		var b []byte
		b = append(b, "# HELP "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = appendEscapedHelp(b, f.help)
		b = append(b, "\n# TYPE "...)
		b = append(b, f.name...)
		b = append(b, " gauge\n"...)
		familyHeaders[i] = newChunk(b)
	}
}

// chunk is a piece of text exposition with its own deflate segment: raw
// deflate blocks ending with a sync flush and no final block, so segments can
// be concatenated into one valid deflate stream.
type chunk struct {
	text    []byte
	deflate []byte
	crc     uint32
}

// gzipLevel trades compression for CPU. Compression happens once per
// refresh, but a refresh may carry hundreds of thousands of series.
const gzipLevel = flate.BestSpeed

// flateWriters recycles deflate compressors: each one is about 1 MiB of
// state, too much to allocate for every chunk and every gzip scrape.
var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, gzipLevel) // level is valid
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

func newChunk(text []byte) chunk {
	var buf bytes.Buffer
	buf.Grow(len(text)/16 + 64) // exposition text compresses 20 to 30 times
	w := getFlateWriter(&buf)
	_, _ = w.Write(text) // writes to a bytes.Buffer do not fail
	_ = w.Flush()
	putFlateWriter(w)
	d := buf.Bytes()
	if cap(d)-len(d) > len(d)/8+64 {
		d = bytes.Clone(d) // the chunk lives until the next refresh: no slack
	}
	return chunk{text: text, deflate: d, crc: crc32.ChecksumIEEE(text)}
}

// renderSnapshot renders every family of one snapshot, without headers.
func renderSnapshot(s *Snapshot) [numFamilies]chunk {
	// Labels are written in name order (path, project, traffic, window), as
	// client_golang writes them, so both scrape paths carry identical series.
	project := appendEscapedLabel([]byte(`project="`), s.Project)
	project = append(project, '"')
	window := appendEscapedLabel([]byte(`,window="`), s.Window)
	window = append(window, `"} `...)

	series := func(b []byte, name, path, traffic string, v float64) []byte {
		b = append(b, name...)
		b = append(b, '{')
		if path != "" {
			b = append(b, `path="`...)
			b = appendEscapedLabel(b, path)
			b = append(b, `",`...)
		}
		b = append(b, project...)
		if traffic != "" {
			b = append(b, `,traffic="`...)
			b = append(b, traffic...)
			b = append(b, '"')
		}
		b = append(b, window...)
		b = appendValue(b, v)
		return append(b, '\n')
	}

	var out [numFamilies]chunk
	var b []byte
	b = series(b, "mintlify_visitors", "", "human", s.Totals.Human)
	b = series(b, "mintlify_visitors", "", "ai", s.Totals.AI)
	out[famVisitors] = newChunk(b)
	out[famVisitorsDedup] = newChunk(series(nil, "mintlify_visitors_deduplicated", "", "", s.Totals.Total))
	out[famPaths] = newChunk(series(nil, "mintlify_visitors_paths", "", "", float64(s.Returned)))
	out[famPathsExported] = newChunk(series(nil, "mintlify_visitors_paths_exported", "", "", float64(len(s.Rows))))

	// Per-page families, about 100 bytes a series: sized exactly, since
	// they are kept until the next refresh and are most of the memory.
	seriesLen := func(name, path, traffic string, v float64) int {
		var digits [32]byte
		n := len(name) + len("{") + len(project) + len(window) + len(appendValue(digits[:0], v)) + len("\n")
		if path != "" {
			n += len(`path="`) + escapedLabelLen(path) + len(`",`)
		}
		if traffic != "" {
			n += len(`,traffic="`) + len(traffic) + len(`"`)
		}
		return n
	}
	pagesLen, dedupLen := 0, 0
	for _, r := range s.Rows {
		pagesLen += seriesLen("mintlify_page_visitors", r.Path, "human", r.Human) +
			seriesLen("mintlify_page_visitors", r.Path, "ai", r.AI)
		dedupLen += seriesLen("mintlify_page_visitors_deduplicated", r.Path, "", r.Total)
	}
	pages := make([]byte, 0, pagesLen)
	dedup := make([]byte, 0, dedupLen)
	for _, r := range s.Rows {
		pages = series(pages, "mintlify_page_visitors", r.Path, "human", r.Human)
		pages = series(pages, "mintlify_page_visitors", r.Path, "ai", r.AI)
		dedup = series(dedup, "mintlify_page_visitors_deduplicated", r.Path, "", r.Total)
	}
	out[famPageVisitors] = newChunk(pages)
	out[famPageVisitorsDedup] = newChunk(dedup)
	return out
}

// appendValue writes a sample value: whole numbers as integers (as the
// counts were written when they were integers), others as Go's shortest
// float form.
func appendValue(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func appendEscapedLabel(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "\\\n\"") {
		return append(b, s...)
	}
	return append(b, labelEscaper.Replace(s)...)
}

// escapedLabelLen is the length of s once escaped by appendEscapedLabel.
func escapedLabelLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '\n', '"':
			n++
		}
	}
	return n
}

func appendEscapedHelp(b []byte, s string) []byte { return append(b, helpEscaper.Replace(s)...) }

// Exposition is the pre-rendered text exposition (format 0.0.4) of every
// visitors snapshot, with a deflate copy made once per refresh. It is
// immutable; a refresh builds a new one and swaps it in.
type Exposition struct {
	chunks  []chunk
	textLen int
	crc     uint32
}

// newExposition assembles the families of the given snapshots, each family
// whole, snapshots in the given order. Families with no series are left out.
func newExposition(snaps []*Snapshot) *Exposition {
	e := &Exposition{}
	if len(snaps) == 0 {
		return e
	}
	for f := range numFamilies {
		header := false
		for _, s := range snaps {
			if len(s.rendered[f].text) == 0 {
				continue
			}
			if !header { // a family without series is left out, as client_golang does
				e.add(familyHeaders[f])
				header = true
			}
			e.add(s.rendered[f])
		}
	}
	return e
}

func (e *Exposition) add(c chunk) {
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

// WriteGzip writes one gzip member holding the pre-rendered text followed by
// tail (the live part of a scrape). Only tail is compressed here; the
// pre-rendered part was compressed when the snapshot was made.
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
