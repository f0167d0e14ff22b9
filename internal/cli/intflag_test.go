package cli

import (
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
)

func TestIntVar(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"90", 90, true}, {"-3", -3, true}, {"+7", 7, true}, {"0", 0, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false}, {"1.9", 0, false}, {"1e3", 0, false},
		{"", 0, false}, {" 5", 0, false}, {"0x10", 0, false}, {"NaN", 0, false},
	} {
		n := -1
		app := kingpin.New("x", "")
		intVar(app.Flag("n", ""), &n)
		_, err := app.Parse([]string{"--n=" + tc.in})
		if (err == nil) != tc.ok || tc.ok && n != tc.want {
			t.Errorf("--n=%s: %d, %v; want %d, ok %v", tc.in, n, err, tc.want, tc.ok)
		}
		if !tc.ok && (n != -1 || !strings.Contains(err.Error(), "--n=")) {
			t.Errorf("--n=%s: value %d, error %v: want the value unchanged and the flag named", tc.in, n, err)
		}
	}
}
