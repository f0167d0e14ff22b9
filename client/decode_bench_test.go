package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchVisitorsPage is a 250-row visitors page as the API writes it.
func benchVisitorsPage() []byte {
	var b strings.Builder
	b.WriteString(`{"totals":{"human":123456,"ai":45678,"total":150000},"visitors":[`)
	for i := range 250 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"path":"/docs/section-%d/page-%d","human":%d,"ai":%d,"total":%d}`, i/50+1, i%50+1, 5000-i*7, 900-i*3, 5600-i*9)
	}
	b.WriteString(`],"hasMore":true}`)
	return []byte(b.String())
}

// BenchmarkDecodeVisitorsPage compares the client's decoding of a 250-row
// visitors page (typed encoding/json plus validation) with a bare
// json.Unmarshal of the same page into plain structs of the same shape.
// The "ratio" sub-benchmark runs both in alternation, so that a machine
// shared with other work slows both alike, and reports client/bare (the
// target is at most about 1.5):
//
//	go test -run '^$' -bench DecodeVisitorsPage -count 6 ./client/
func BenchmarkDecodeVisitorsPage(b *testing.B) {
	body := benchVisitorsPage()
	bare := func() int {
		var p struct {
			Totals   Counts       `json:"totals"`
			Visitors []PathCounts `json:"visitors"`
			HasMore  bool         `json:"hasMore"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			b.Fatal(err)
		}
		return len(p.Visitors)
	}
	decode := func() int {
		p, err := decodePaths(EndpointVisitors, body)
		if err != nil {
			b.Fatal(err)
		}
		return len(p.Rows)
	}
	b.Run("ratio", func(b *testing.B) {
		var tc, tb time.Duration
		for range b.N {
			t0 := time.Now()
			n := decode()
			t1 := time.Now()
			m := bare()
			t2 := time.Now()
			if n != 250 || m != 250 {
				b.Fatalf("%d and %d rows", n, m)
			}
			tc += t1.Sub(t0)
			tb += t2.Sub(t1)
		}
		b.ReportMetric(float64(tc)/float64(tb), "client/bare")
	})
	b.Run("client", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for range b.N {
			p, err := decodePaths(EndpointVisitors, body)
			if err != nil || len(p.Rows) != 250 {
				b.Fatalf("%v, %d rows", err, len(p.Rows))
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for range b.N {
			var p struct {
				Totals   Counts       `json:"totals"`
				Visitors []PathCounts `json:"visitors"`
				HasMore  bool         `json:"hasMore"`
			}
			if err := json.Unmarshal(body, &p); err != nil || len(p.Visitors) != 250 {
				b.Fatalf("%v, %d rows", err, len(p.Visitors))
			}
		}
	})
}
