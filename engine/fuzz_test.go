package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// fuzzWindowShape is the form of every valid window.
var fuzzWindowShape = regexp.MustCompile(`^[1-9][0-9]{0,2}d(:site)?$`)

// FuzzParseWindow: exactly "1d" to "366d", without sign or leading zero,
// optionally followed by ":site", are accepted, and an accepted window
// covers its number of days, ending tomorrow.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"1d", "7d", "30d", "366d", "367d", "0d", "07d", "-1d", "+7d", "7", "d", "1w", "7D", " 7d", "7d ", "١d", "9999999999999999999999d", "7d:site", "7d:site:site", "7d:", ":site"} {
		f.Add(s, int64(1773144000))
	}
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		w, err := ParseWindow(s)
		valid := false
		if fuzzWindowShape.MatchString(s) {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(s, ":site"), "d"))
			valid = n <= MaxWindowDays
		}
		if (err == nil) != valid {
			t.Fatalf("ParseWindow(%q) = %+v, %v; want valid %v", s, w, err, valid)
		}
		if err != nil {
			return
		}
		if w.String() != s || strconv.Itoa(w.Days)+"d" != w.Name || w.Site != strings.HasSuffix(s, ":site") || w.Days < 1 || w.Days > MaxWindowDays {
			t.Fatalf("ParseWindow(%q) = %+v", s, w)
		}
		now := time.Unix(unix%(1<<35), 0)
		r := w.Range(now)
		if r.Days() != w.Days || r.To != client.DateOf(now).AddDays(1) {
			t.Fatalf("%s at %s covers %s (%d days)", s, now.UTC(), r, r.Days())
		}
	})
}
