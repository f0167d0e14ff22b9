package stream

import "github.com/axiomhq/hyperloglog"

// Sketch precisions: 2^14 registers site-wide (standard error
// 1.04/sqrt(16384) = 0.81 %, 16 KiB dense), 2^12 per path (1.63 %, 4 KiB
// dense); both start sparse, a few bytes a visitor, while small.
const (
	siteprecision = 14
	pageprecision = 12
)

// The windows of the visitor gauges, in UTC days ending today.
var windows = []struct {
	name string
	days int32
}{{"1d", 1}, {"7d", 7}, {"30d", 30}}

func sketchOf(days map[int32]*hyperloglog.Sketch, day int32, precision uint8) *hyperloglog.Sketch {
	sk := days[day]
	if sk == nil {
		sk, _ = hyperloglog.NewSketch(precision, true) // precision is a valid constant
		days[day] = sk
	}
	return sk
}

// estimate merges the days of each window and estimates its distinct
// visitors.
func estimate(days map[int32]*hyperloglog.Sketch, today int32) map[string]uint64 {
	out := make(map[string]uint64, len(windows))
	var acc *hyperloglog.Sketch
	covered := int32(0)
	for _, w := range windows {
		for ; covered < w.days; covered++ {
			sk := days[today-covered]
			if sk == nil {
				continue
			}
			if acc == nil {
				acc = sk.Clone()
			} else if acc.Merge(sk) != nil {
				continue // same precision by construction; Restore checks it
			}
		}
		if acc != nil {
			out[w.name] = acc.Estimate()
		} else {
			out[w.name] = 0
		}
	}
	return out
}
