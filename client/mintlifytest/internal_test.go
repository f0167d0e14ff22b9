package mintlifytest

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestSlidingWindow(t *testing.T) {
	w := newSlidingWindow(2, time.Hour)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := w.take(t0); !ok {
		t.Fatal("first refused")
	}
	if _, ok := w.take(t0.Add(time.Minute)); !ok {
		t.Fatal("second refused")
	}
	wait, ok := w.take(t0.Add(2 * time.Minute))
	if ok || wait != 58*time.Minute {
		t.Fatalf("third: ok %v wait %v", ok, wait)
	}
	if _, ok := w.take(t0.Add(time.Hour)); !ok {
		t.Fatal("refused once the first left the window")
	}
	if len(w.times) != 2 {
		t.Fatalf("window holds %d events", len(w.times))
	}
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{{time.Nanosecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {time.Hour, 3600}} {
		if got := retryAfterSeconds(tc.d); got != tc.want {
			t.Errorf("retryAfterSeconds(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestSiteTotalsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + rng.IntN(6)
		rows := make([]Row, n)
		var sum Counts
		for i := range rows {
			h, a := rng.Int64N(5), rng.Int64N(5)
			tot := max(h, a) + rng.Int64N(min(h, a)+1)
			if tot == 0 {
				h, tot = 1, 1
			}
			rows[i] = Row{Path: "/", Counts: Counts{h, a, tot}}
			sum.Human, sum.AI, sum.Total = sum.Human+h, sum.AI+a, sum.Total+tot
		}
		c := siteTotals(rows)
		if c.Total < max(c.Human, c.AI) || c.Total > c.Human+c.AI {
			t.Fatalf("%+v -> %+v breaks the total bounds", rows, c)
		}
		if n > 1 && c.Total >= sum.Total {
			t.Fatalf("%+v -> %+v: total not below the sum %d", rows, c, sum.Total)
		}
		for _, r := range rows {
			if c.Human < r.Human || c.AI < r.AI || c.Total < r.Total {
				t.Fatalf("%+v -> %+v: below a page", rows, c)
			}
		}
	}
}

func TestDatasetColumnsGrow(t *testing.T) {
	d := NewDataset()
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	d.Set(day, "/a", 1, 0, 1)
	for i := range 100 {
		d.Set(day.AddDate(0, 0, 1), string(rune('a'+i%26))+"/"+string(rune('0'+i/26)), 1, 1, 2)
	}
	d.Set(day, "/late", 2, 0, 2)
	paths, h, _, tot := d.sums(dayNumber(day), dayNumber(day)+1)
	if len(paths) != 102 || h[0] != 1 || h[101] != 2 || tot[5] != 0 {
		t.Fatalf("paths %d h[0] %d h[101] %d tot[5] %d", len(paths), h[0], h[101], tot[5])
	}
}
