package backoff

import (
	"math"
	"slices"
	"testing"
	"time"
)

func delays(p Policy, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = p.Delay(i + 1)
	}
	return out
}

func TestDelay(t *testing.T) {
	s, m := time.Second, time.Minute
	for _, tc := range []struct {
		name string
		p    Policy
		want []time.Duration
	}{
		{"doubles to the cap", Policy{Base: 30 * s, Max: 4 * m}, []time.Duration{30 * s, m, 2 * m, 4 * m, 4 * m, 4 * m}},
		{"cap between two doublings", Policy{Base: 100 * time.Millisecond, Max: 500 * time.Millisecond},
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}},
		{"base above the cap", Policy{Base: time.Hour, Max: m}, []time.Duration{m, m, m, m, m, m}},
		{"base equals the cap", Policy{Base: m, Max: m}, []time.Duration{m, m, m, m, m, m}},
		{"zero", Policy{}, []time.Duration{0, 0, 0, 0, 0, 0}},
		{"no cap", Policy{Base: s}, []time.Duration{0, 0, 0, 0, 0, 0}},
		{"negative", Policy{Base: -s, Max: -s}, []time.Duration{0, 0, 0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := delays(tc.p, len(tc.want)); !slices.Equal(got, tc.want) {
				t.Errorf("delays %v, want %v", got, tc.want)
			}
			if got, want := tc.p.Delay(0), tc.p.Delay(1); got != want {
				t.Errorf("Delay(0) = %v, want Delay(1) = %v", got, want)
			}
			if got, want := tc.p.Delay(-5), tc.p.Delay(1); got != want {
				t.Errorf("Delay(-5) = %v, want Delay(1) = %v", got, want)
			}
		})
	}
}

func TestDelayNeverOverflows(t *testing.T) {
	for _, p := range []Policy{
		{Base: time.Nanosecond, Max: math.MaxInt64},
		{Base: time.Hour, Max: math.MaxInt64},
		{Base: 3, Max: math.MaxInt64 - 1},
		{Base: math.MaxInt64/2 + 1, Max: math.MaxInt64},
	} {
		prev := time.Duration(0)
		for _, n := range []int{1, 2, 10, 40, 62, 63, 64, 65, 100, 1000, math.MaxInt} {
			d := p.Delay(n)
			if d < prev || d > p.Max {
				t.Fatalf("%+v: Delay(%d) = %v after %v: not monotonic within [0, Max]", p, n, d, prev)
			}
			prev = d
		}
		if prev != p.Max {
			t.Errorf("%+v: Delay(MaxInt) = %v, want the cap %v", p, prev, p.Max)
		}
	}
}

func TestJitter(t *testing.T) {
	var seen []time.Duration
	p := Policy{Base: time.Second, Max: 3 * time.Second, Jitter: func(d time.Duration) time.Duration {
		seen = append(seen, d)
		return d * 10
	}}
	if got := delays(p, 4); !slices.Equal(got, []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}) {
		t.Errorf("jittered delays %v, want them capped at 3s", got)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}; !slices.Equal(seen, want) {
		t.Errorf("Jitter saw %v, want the capped delays %v", seen, want)
	}
	p.Jitter = func(time.Duration) time.Duration { return -time.Second }
	if got := p.Delay(2); got != 0 {
		t.Errorf("a negative jitter gave %v, want 0", got)
	}
}

func TestHalfJitter(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if got := HalfJitter(d); got != 0 {
			t.Errorf("HalfJitter(%v) = %v, want 0", d, got)
		}
	}
	if got := HalfJitter(1); got != 0 && got != 1 {
		t.Errorf("HalfJitter(1ns) = %v", got)
	}
	distinct := map[time.Duration]bool{}
	for range 200 {
		got := HalfJitter(time.Second)
		if got < 500*time.Millisecond || got > time.Second {
			t.Fatalf("HalfJitter(1s) = %v, outside [500ms, 1s]", got)
		}
		distinct[got] = true
	}
	// 200 draws from half a billion values: fewer than 100 distinct ones
	// means no randomness worth the name.
	if len(distinct) < 100 {
		t.Errorf("only %d distinct delays in 200 draws", len(distinct))
	}
	if got := HalfJitter(math.MaxInt64); got < math.MaxInt64/2 {
		t.Errorf("HalfJitter(MaxInt64) = %v, below half", got)
	}
}
