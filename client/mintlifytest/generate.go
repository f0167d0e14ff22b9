package mintlifytest

import (
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// GenerateOptions configures Generate.
type GenerateOptions struct {
	// Seed makes the data reproducible: equal options give equal data.
	Seed int64
	// Paths is the number of distinct paths (default 200). Every path gets
	// at least one visitor over the generated days, so a query covering
	// them all returns exactly Paths rows.
	Paths int
	// Days is the number of days of history ending with End (default 30).
	Days int
	// End is the last day with data (its UTC date); zero means today by
	// time.Now.
	End time.Time
	// AIShare is the average fraction of AI traffic (default 0.3 when 0).
	AIShare float64
}

// Generate returns a synthetic dataset that looks like a documentation
// site's traffic: realistic paths (/, /quickstart, /api-reference/...,
// /guides/...; synthetic /docs/section-N/page-M once those run out), a
// Zipf-like popularity where a few pages get most visitors, a human/AI mix
// that varies by page (API reference pages draw more AI), fewer humans at
// weekends, and day-to-day noise. It is deterministic for given options
// (with a non-zero End).
func Generate(o GenerateOptions) *Dataset {
	if o.Paths <= 0 {
		o.Paths = 200
	}
	if o.Days <= 0 {
		o.Days = 30
	}
	if o.End.IsZero() {
		o.End = time.Now()
	}
	if o.AIShare == 0 {
		o.AIShare = 0.3
	}
	o.AIShare = min(max(o.AIShare, 0), 1)
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x6d696e746c696679))
	paths := docPaths(o.Paths, rng)

	end := dayNumber(o.End)
	first := end - int32(o.Days) + 1
	d := NewDataset()
	d.paths = paths
	for i, p := range paths {
		d.index[p] = int32(i)
	}
	cols := make([]*dayColumns, o.Days)
	for k := range cols {
		cols[k] = &dayColumns{
			human: make([]int32, len(paths)),
			ai:    make([]int32, len(paths)),
			total: make([]int32, len(paths)),
		}
		d.days[first+int32(k)] = cols[k]
	}
	for i, p := range paths {
		// Zipf-like mean of daily visitors with a per-page wobble, plus a
		// floor so that the long tail still sees the odd visitor.
		mean := 1500/math.Pow(float64(i+1), 1.05)*math.Exp(rng.NormFloat64()*0.25) + 0.2
		share := min(o.AIShare*aiAffinity(p)*(0.7+0.6*rng.Float64()), 0.95)
		sum := int64(0)
		for k, c := range cols {
			weekday := dayTime(first + int32(k)).Weekday()
			humanDay, aiDay := 1.0, 1.0
			if weekday == time.Saturday || weekday == time.Sunday {
				humanDay, aiDay = 0.4, 0.9
			}
			noise := 0.8 + 0.4*rng.Float64()
			h := int32(mean*(1-share)*humanDay*noise + rng.Float64())
			a := int32(mean*share*aiDay*noise + rng.Float64())
			overlap := int32(float64(min(h, a)) * (0.05 + 0.2*rng.Float64()))
			c.human[i], c.ai[i], c.total[i] = h, a, h+a-overlap
			sum += int64(h + a)
		}
		if sum == 0 {
			k := rng.IntN(len(cols))
			cols[k].human[i], cols[k].total[i] = 1, 1
		}
	}
	d.version++
	return d
}

// aiAffinity scales the AI share of a page by its kind: AI agents read API
// references and SDK docs far more than the home page or the changelog.
func aiAffinity(path string) float64 {
	switch {
	case strings.HasPrefix(path, "/api-reference/"):
		return 1.8
	case strings.HasPrefix(path, "/sdks/"), strings.HasPrefix(path, "/reference/"):
		return 1.4
	case path == "/", path == "/changelog":
		return 0.5
	}
	return 1
}
