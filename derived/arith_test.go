package derived

import (
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func date(t *testing.T, s string) client.Date {
	t.Helper()
	d, err := client.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSumFamily(t *testing.T) {
	a := []exposition.Sample{{Labels: [2]string{"/a"}, Value: 1}, {Labels: [2]string{"/b"}, Value: 2}}
	b := []exposition.Sample{{Labels: [2]string{"/c"}, Value: 4}, {Labels: [2]string{"/a"}, Value: 8}}
	c := []exposition.Sample{{Labels: [2]string{"/a", "ai"}, Value: 16}}
	other := []exposition.Sample{{Value: 32}}
	days := []*engine.Result{
		{Samples: [][]exposition.Sample{other, a}},
		{Samples: [][]exposition.Sample{other}}, // without family 1
		{Samples: [][]exposition.Sample{other, nil}},
		{Samples: [][]exposition.Sample{other, b}},
		{Samples: [][]exposition.Sample{other, c}},
	}
	got := SumFamily(days, 1)
	want := []exposition.Sample{
		{Labels: [2]string{"/a"}, Value: 9}, {Labels: [2]string{"/b"}, Value: 2},
		{Labels: [2]string{"/c"}, Value: 4}, {Labels: [2]string{"/a", "ai"}, Value: 16},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if a[0].Value != 1 {
		t.Fatal("SumFamily changed its input")
	}
	if got := SumFamily(days, 0); !slices.Equal(got, []exposition.Sample{{Value: 160}}) {
		t.Fatalf("family 0 sums to %v, want 160", got)
	}
	if got := SumFamily(nil, 0); len(got) != 0 {
		t.Fatalf("the sum of nothing is %v", got)
	}
}

func TestClosedDays(t *testing.T) {
	for _, c := range []struct {
		n    int
		now  time.Time
		want []string
	}{
		{1, now, nil},
		{2, now, []string{"2026-03-09"}},
		{3, now, []string{"2026-03-08", "2026-03-09"}},
		{3, time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), []string{"2026-03-08", "2026-03-09"}},
		{3, time.Date(2026, 3, 9, 23, 59, 59, 0, time.UTC), []string{"2026-03-07", "2026-03-08"}},
		{0, now, nil},
	} {
		var got []string
		for _, d := range ClosedDays(c.n, c.now) {
			got = append(got, d.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ClosedDays(%d, %s) = %v, want %v", c.n, c.now, got, c.want)
		}
	}
}

func TestRereadDue(t *testing.T) {
	day := date(t, "2026-03-08") // ends 2026-03-09T00:00Z; due 24 h later
	due := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	if RereadDue(day, due.Add(-time.Nanosecond)) {
		t.Error("due before RereadAfter")
	}
	if !RereadDue(day, due) || !RereadDue(day, due.Add(time.Hour)) {
		t.Error("not due at or after RereadAfter")
	}
}

func TestDrift(t *testing.T) {
	for _, c := range []struct{ direct, summed, want float64 }{
		{100, 100, 0}, {0, 0, 0}, {100, 99, 0.01}, {99, 100, 0.01}, {0, 5, 1}, {-10, 10, 2}, {200, 100, 0.5},
	} {
		if got := Drift(c.direct, c.summed); got != c.want {
			t.Errorf("Drift(%v, %v) = %v, want %v", c.direct, c.summed, got, c.want)
		}
	}
}

func key(t *testing.T, day string) Key {
	return Key{Source: "views", Project: "docs", Day: date(t, day)}
}

func TestStorePutAndProvisional(t *testing.T) {
	s := Store[int]{}
	k := key(t, "2026-03-09")
	s.KeepProvisional(k, 1, now.Add(-12*time.Hour))
	if e := s[k]; e == nil || !e.Provisional || e.Result != 1 || !e.ReadAt.Equal(now.Add(-12*time.Hour)) {
		t.Fatalf("provisional entry %+v", e)
	}
	s.Put(k, 2, now, false)
	if e := s[k]; e.Provisional || e.Result != 2 || e.Reread || !e.ReadAt.Equal(now) {
		t.Fatalf("first read %+v", e)
	}
	s.KeepProvisional(k, 3, now)
	if s[k].Result != 2 {
		t.Fatal("a provisional entry replaced a read day")
	}
	s.Put(k, 4, now, true)
	if !s[k].Reread {
		t.Fatal("a second read is not marked")
	}
	late := key(t, "2026-03-08")
	s.Put(late, 5, now, false) // read 36 h after it ended
	if !s[late].Reread {
		t.Fatal("a day read after RereadAfter is due a second read")
	}
}

func TestStoreCoversAndUnsettled(t *testing.T) {
	s := Store[int]{}
	k8, k9 := key(t, "2026-03-08"), key(t, "2026-03-09")
	keys := []Key{k8, k9}
	if !s.Covers(nil) || s.Covers(keys) {
		t.Fatal("Covers of an empty store")
	}
	s.Put(k8, 1, time.Date(2026, 3, 9, 1, 0, 0, 0, time.UTC), false)
	if s.Covers(keys) {
		t.Fatal("covers with a day missing")
	}
	if !s.Unsettled(keys, now) {
		t.Fatal("a day due its second read is settled")
	}
	if s.Unsettled(keys, time.Date(2026, 3, 9, 23, 0, 0, 0, time.UTC)) {
		t.Fatal("a day read once, not yet due again, is unsettled")
	}
	s.KeepProvisional(k9, 2, now)
	if !s.Covers(keys) {
		t.Fatal("a provisional day does not cover")
	}
	s.Put(k8, 3, now, true)
	if !s.Unsettled(keys, now) {
		t.Fatal("a provisional day is settled")
	}
	s.Put(k9, 4, now, false)
	if s.Unsettled(keys, now) {
		t.Fatal("days read for good are unsettled")
	}
}

func TestStoreTasks(t *testing.T) {
	s := Store[int]{}
	k5, k6, k7, k8, k9 := key(t, "2026-03-05"), key(t, "2026-03-06"), key(t, "2026-03-07"), key(t, "2026-03-08"), key(t, "2026-03-09")
	site9 := k9
	site9.Site = true
	s.Put(k5, 0, time.Date(2026, 3, 6, 1, 0, 0, 0, time.UTC), false) // due again
	s.Put(k6, 0, time.Date(2026, 3, 7, 1, 0, 0, 0, time.UTC), true)  // read twice
	s.Put(k7, 0, time.Date(2026, 3, 8, 1, 0, 0, 0, time.UTC), false) // due again
	s.KeepProvisional(k9, 0, now)                                    // read again as missing
	got := s.Tasks([]Key{k5, k6, k7, k8, k9, site9, k8, k7}, now)
	want := []Task{{Key: k9}, {Key: site9}, {Key: k8}, {Key: k7, Reread: true}, {Key: k5, Reread: true}}
	if !slices.Equal(got, want) {
		t.Fatalf("tasks\n got %+v\nwant %+v", got, want)
	}
	if got := s.Tasks(nil, now); len(got) != 0 {
		t.Fatalf("tasks of nothing wanted: %+v", got)
	}
}

func TestStorePrune(t *testing.T) {
	s := Store[int]{}
	k8, k9 := key(t, "2026-03-08"), key(t, "2026-03-09")
	s.Put(k8, 1, now, false)
	s.Put(k9, 2, now, false)
	s.Prune(map[Key]bool{k9: true})
	if len(s) != 1 || s[k9] == nil {
		t.Fatalf("after pruning to k9: %v", s)
	}
}
