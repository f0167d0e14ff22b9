package promtest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing; a
// fatal one stops the check through a panic that run recovers.
type recorder struct {
	testing.TB
	errs []string
}

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}
func (r *recorder) Fatal(args ...any) {
	r.errs = append(r.errs, fmt.Sprint(args...))
	panic(fatal{})
}

// run runs check against a recorder and returns the failures it recorded.
func run(t *testing.T, check func(tb testing.TB)) []string {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(fatal); !ok {
					panic(p)
				}
			}
		}()
		check(r)
	}()
	return r.errs
}

const good = `# HELP a_total Things.
# TYPE a_total counter
a_total{x="1"} 1
a_total{x="2"} 2
# HELP h Latency.
# TYPE h histogram
h_bucket{le="1"} 1
h_bucket{le="+Inf"} 2
h_sum 3
h_count 2
# HELP g A gauge.
# TYPE g gauge
g 5
`

func TestCheckBlocks(t *testing.T) {
	if errs := run(t, func(tb testing.TB) { CheckBlocks(tb, []byte(good)) }); len(errs) != 0 {
		t.Fatalf("a good exposition failed: %v", errs)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"split family", good + "# HELP g A gauge.\n# TYPE g gauge\ng 6\n", "family g appears twice"},
		{"no samples", "# HELP g A gauge.\n# TYPE g gauge\n# HELP a b\n# TYPE a gauge\na 1\n", "family g has HELP and TYPE but no samples"},
		{"no samples at the end", "# HELP g A gauge.\n# TYPE g gauge\n", "family g has HELP and TYPE but no samples"},
		{"TYPE elsewhere", "# HELP g A gauge.\n# TYPE a gauge\ng 1\n", "TYPE of a not right after its HELP"},
		{"sample in another block", "# HELP g A gauge.\n# TYPE g gauge\ng 1\ngx 2\n", `sample "gx" outside the block`},
		{"longer name in the block", "# HELP g A gauge.\n# TYPE g gauge\ng_paths 2\n", `sample "g_paths" outside the block`},
		{"suffix alone", "# HELP g A gauge.\n# TYPE g gauge\n_sum 2\n", `sample "_sum" outside the block`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := run(t, func(tb testing.TB) { CheckBlocks(tb, []byte(tc.text)) })
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("failures %q, want one containing %q", errs, tc.want)
			}
		})
	}
}

func TestParseTextAndLabels(t *testing.T) {
	mfs := ParseText(t, []byte(good))
	if len(mfs) != 3 || len(mfs["a_total"].GetMetric()) != 2 {
		t.Fatalf("parsed %d families", len(mfs))
	}
	if got := Labels(mfs["a_total"].GetMetric()[1]); len(got) != 1 || got["x"] != "2" {
		t.Errorf("Labels = %v, want x=2", got)
	}
	if got := Labels(mfs["g"].GetMetric()[0]); len(got) != 0 {
		t.Errorf("Labels of a series without labels = %v", got)
	}
	if errs := run(t, func(tb testing.TB) { ParseText(tb, []byte("g{ 1\n")) }); len(errs) != 1 || !strings.Contains(errs[0], "does not parse") {
		t.Errorf("a broken exposition gave %q", errs)
	}
}

func TestGunzipOne(t *testing.T) {
	member := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	one := member("hello")
	if got := GunzipOne(t, one); string(got) != "hello" {
		t.Fatalf("GunzipOne = %q", got)
	}
	corrupt := bytes.Clone(one)
	corrupt[len(corrupt)-5] ^= 0xff // the CRC
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"two members", append(bytes.Clone(one), member("again")...), "bytes follow the gzip member"},
		{"not gzip", []byte("hello"), "not gzip"},
		{"bad CRC", corrupt, "does not read to its end"},
		{"cut short", one[:len(one)-3], "does not read to its end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := run(t, func(tb testing.TB) { GunzipOne(tb, tc.b) })
			if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
				t.Errorf("failures %q, want one containing %q", errs, tc.want)
			}
		})
	}
}
