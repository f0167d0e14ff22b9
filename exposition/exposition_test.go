package exposition_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

func text(t *testing.T, x *exposition.Exposition) string {
	t.Helper()
	var b strings.Builder
	if err := x.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() != x.TextLen() {
		t.Fatalf("TextLen %d, wrote %d bytes", x.TextLen(), b.Len())
	}
	return b.String()
}

func TestSeriesSortsLabelsAndEscapes(t *testing.T) {
	x := &exposition.Exposition{}
	x.Add(exposition.Header("mintlify_page_views", "Views of a page.\nBy path \\ kind."))
	x.Add(exposition.Series("mintlify_page_views", []string{"path", "kind"}, `do"cs`, "7d", []exposition.Sample{
		{Labels: [2]string{"/a", "human"}, Value: 12},
		{Labels: [2]string{"/b\"q\\\n", "ai"}, Value: 0.25},
		{Labels: [2]string{"", ""}, Value: -3},
	}))
	x.Add(exposition.Series("mintlify_visitors", nil, "docs", "1d", []exposition.Sample{{Value: 1e15}}))
	want := `# HELP mintlify_page_views Views of a page.\nBy path \\ kind.
# TYPE mintlify_page_views gauge
mintlify_page_views{kind="human",path="/a",project="do\"cs",window="7d"} 12
mintlify_page_views{kind="ai",path="/b\"q\\\n",project="do\"cs",window="7d"} 0.25
mintlify_page_views{kind="",path="",project="do\"cs",window="7d"} -3
mintlify_visitors{project="docs",window="1d"} 1000000000000000
`
	if got := text(t, x); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	if _, err := parser.TextToMetricFamilies(strings.NewReader(want)); err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
}

func TestSeriesValues(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {7, "7"}, {-7, "-7"}, {0.5, "0.5"}, {1.5e-7, "1.5e-07"},
		{1 << 53, "9.007199254740992e+15"}, {1<<53 - 1, "9007199254740991"},
		{-(1<<53 - 1), "-9007199254740991"}, {-(1 << 53), "-9.007199254740992e+15"},
		{math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"},
	} {
		x := &exposition.Exposition{}
		x.Add(exposition.Series("m", nil, "p", "1d", []exposition.Sample{{Value: c.v}}))
		if got, want := text(t, x), `m{project="p",window="1d"} `+c.want+"\n"; got != want {
			t.Errorf("value %v: got %q, want %q", c.v, got, want)
		}
	}
}

func TestEmptySeriesAddsNothing(t *testing.T) {
	c := exposition.Series("m", nil, "p", "1d", nil)
	if !c.Empty() {
		t.Fatal("a family without samples is not empty")
	}
	if exposition.Header("m", "h").Empty() {
		t.Fatal("a header is empty")
	}
	x := &exposition.Exposition{}
	x.Add(c)
	if x.TextLen() != 0 || text(t, x) != "" {
		t.Fatalf("an empty chunk added %d bytes", x.TextLen())
	}
}

func TestWriteGzipIsTextThenTail(t *testing.T) {
	x := &exposition.Exposition{}
	x.Add(exposition.Header("m", "h"))
	var samples []exposition.Sample
	for i := range 500 {
		samples = append(samples, exposition.Sample{Labels: [2]string{strings.Repeat("/p", i%7)}, Value: float64(i)})
	}
	x.Add(exposition.Series("m", []string{"path"}, "p", "30d", samples))
	tail := []byte("# HELP live l\n# TYPE live gauge\nlive 1\n")
	var z bytes.Buffer
	if err := x.WriteGzip(&z, tail); err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(&z)
	if err != nil {
		t.Fatal(err)
	}
	r.Multistream(false)
	got, err := io.ReadAll(r) // checks the CRC and length in the trailer
	if err != nil {
		t.Fatalf("not one valid gzip member: %v", err)
	}
	if want := text(t, x) + string(tail); string(got) != want {
		t.Fatalf("gzip holds %d bytes, want the text then the tail (%d bytes)", len(got), len(want))
	}
	if rest, _ := io.ReadAll(&z); len(rest) > 0 {
		t.Fatalf("%d bytes after the gzip member", len(rest))
	}
}

type failAfter struct{ n int }

var errBroken = errors.New("broken pipe")

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errBroken
	}
	w.n--
	return len(p), nil
}

func TestWriteErrorsAreReturned(t *testing.T) {
	x := &exposition.Exposition{}
	x.Add(exposition.Header("m", "h"))
	x.Add(exposition.Series("m", nil, "p", "1d", []exposition.Sample{{Value: 1}}))
	if err := x.WriteText(&failAfter{n: 1}); !errors.Is(err, errBroken) {
		t.Fatalf("WriteText: %v, want the writer's error", err)
	}
	for n := range 5 { // header, two chunks, the tail's deflate, the trailer
		if err := x.WriteGzip(&failAfter{n: n}, []byte("live 1\n")); !errors.Is(err, errBroken) {
			t.Fatalf("WriteGzip failing after %d writes: %v, want the writer's error", n, err)
		}
	}
}

func TestSanitizeLabel(t *testing.T) {
	for in, want := range map[string]string{
		"/docs/ok":      "/docs/ok",
		"caf\xe9":       "caf\uFFFD",
		"\xff\xfe/x":    "\uFFFD/x",
		"€ stays €":     "€ stays €",
		"":              "",
		"a\"b\\c\nd":    "a\"b\\c\nd",
		"\xed\xa0\x80z": "\uFFFDz",
	} {
		if got := exposition.SanitizeLabel(in); got != want {
			t.Errorf("SanitizeLabel(%q) = %q, want %q", in, got, want)
		}
		if !model.LabelValue(exposition.SanitizeLabel(in)).IsValid() {
			t.Errorf("SanitizeLabel(%q) is not a valid label value", in)
		}
	}
}

func TestSampleJSON(t *testing.T) {
	for _, c := range []struct {
		s    exposition.Sample
		json string
	}{
		{exposition.Sample{Value: 3}, `[3]`},
		{exposition.Sample{Labels: [2]string{"/a"}, Value: 0.5}, `["/a",0.5]`},
		{exposition.Sample{Labels: [2]string{"/a", "human"}, Value: 2}, `["/a","human",2]`},
		{exposition.Sample{Labels: [2]string{"", "human"}, Value: 2}, `["","human",2]`},
	} {
		b, err := c.s.MarshalJSON()
		if err != nil || string(b) != c.json {
			t.Errorf("%+v: %s, %v; want %s", c.s, b, err, c.json)
		}
		var back exposition.Sample
		if err := back.UnmarshalJSON([]byte(c.json)); err != nil || back != c.s {
			t.Errorf("%s read back as %+v, %v", c.json, back, err)
		}
	}
	if _, err := (exposition.Sample{Value: math.NaN()}).MarshalJSON(); err == nil {
		t.Error("NaN saved")
	}
	for _, bad := range []string{`[]`, `["a","b","c",1]`, `[1,2]`, `["a"]`, `{}`, `["a",true]`} {
		var s exposition.Sample
		if err := s.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s read as %+v", bad, s)
		}
	}
}
