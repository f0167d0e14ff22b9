package stream

import (
	"fmt"
	"math"
	"testing"

	"github.com/axiomhq/hyperloglog"
)

// The visitor sketches against exact counts: within three standard errors
// (1.04/sqrt(2^p): 0.81 % site-wide, 1.63 % per path), one sketch per day
// merged over the windows as the gauges are.
func TestSketchErrorAgainstExactCounts(t *testing.T) {
	sizes := []int{10_000, 100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, precision := range []uint8{siteprecision, pageprecision} {
		stderr := 1.04 / math.Sqrt(float64(uint64(1)<<precision))
		for _, n := range sizes {
			// n distinct visitors over 30 days: each visits on day i%30 and
			// on day (i*7)%30, so the days overlap as real days do.
			days := map[int32]*hyperloglog.Sketch{}
			const today = 20_000
			exact7 := map[int]bool{}
			for i := range n {
				id := fmt.Sprintf("anon-%08d", i)
				for _, d := range []int32{int32(i % 30), int32(i * 7 % 30)} {
					sketchOf(days, today-d, precision).InsertHash(hash64(id))
					if d < 7 {
						exact7[i] = true
					}
				}
			}
			got := estimate(days, today)
			for window, exact := range map[string]int{"7d": len(exact7), "30d": n} {
				e := (float64(got[window]) - float64(exact)) / float64(exact)
				t.Logf("p=%d n=%d %s: estimate %d, exact %d, error %+.3f %% (stderr %.2f %%)", precision, n, window, got[window], exact, 100*e, 100*stderr)
				if math.Abs(e) > 3*stderr {
					t.Errorf("p=%d n=%d %s: error %.3f %% beyond 3 standard errors (%.2f %%)", precision, n, window, 100*e, 300*stderr)
				}
			}
		}
	}
}
