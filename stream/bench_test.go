package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// benchStore is a bucket in memory for the benchmarks.
type benchStore struct {
	keys []string
	objs map[string][]byte
	t    time.Time
}

func (b *benchStore) List(_ context.Context, _, after string, max int) ([]ObjectInfo, error) {
	i := sort.SearchStrings(b.keys, after)
	if i < len(b.keys) && b.keys[i] == after {
		i++
	}
	var out []ObjectInfo
	for ; i < len(b.keys) && len(out) < max; i++ {
		out = append(out, ObjectInfo{Key: b.keys[i], Size: int64(len(b.objs[b.keys[i]])), LastModified: b.t})
	}
	return out, nil
}

func (b *benchStore) Open(_ context.Context, key string) (io.ReadCloser, ObjectMeta, error) {
	return io.NopCloser(bytes.NewReader(b.objs[key])), ObjectMeta{LastModified: b.t}, nil
}

var benchAgents = []string{
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
	"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0",
	"curl/8.5.0",
}

// benchLine writes one event line as the vendor does (payload an object;
// every 4th a JSON string), about 600 bytes.
func benchLine(w *bytes.Buffer, rng *rand.Rand, i int, paths int) {
	typ, props := "docs.content.view", `{}`
	switch i % 20 {
	case 7:
		typ, props = "docs.search.query", `{"query":"how to deploy"}`
	case 13:
		typ, props = "docs.mcp.tool_call", `{"tool":"search"}`
	}
	path := fmt.Sprintf("/docs/section-%d/page-%d", i%17, zipf(rng, paths))
	payload := fmt.Sprintf(`{"event_id":"%08x-%04x-4%03x-8%03x-%012x","subdomain":"acme","user_id":"","anon_id":"anon-%d","session_id":"s-%d","created_at":"2026-08-21T12:%02d:%02d.123Z","event":%q,"path":%q,"referrer":"https://www.google.com/search?q=x","user_agent":%q,"ip":"203.0.113.%d","properties":%s}`,
		i, i>>16&0xffff, i&0xfff, i>>4&0xfff, i, rng.IntN(1_000_000), i/10, i/60%60, i%60, typ, path, benchAgents[i%len(benchAgents)], i%250, props)
	if i%4 == 3 {
		fmt.Fprintf(w, `{"eventType":%q,"payload":%q}`+"\n", typ, payload)
	} else {
		fmt.Fprintf(w, `{"eventType":%q,"payload":%s}`+"\n", typ, payload)
	}
}

// zipf picks a path rank: a few paths take most views, as on a docs site.
func zipf(rng *rand.Rand, n int) int {
	return int(float64(n) * rng.Float64() * rng.Float64() * rng.Float64())
}

// BenchmarkParseAndCount reads and counts events through Poll (list, open,
// parse, dedupe, count, sketch) on one goroutine; run it with -cpu 1.
// Target (issue 36, item 10): 100,000 events a second on one core. It
// reports events per second of wall time and per second of the process's
// CPU time (user and system, the GC included): on a shared machine the
// second is the measure of the code.
func BenchmarkParseAndCount(b *testing.B) {
	const objects, perObject = 20, 5000
	rng := rand.New(rand.NewPCG(1, 2))
	store := &benchStore{objs: map[string][]byte{}, t: time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)}
	var bytesTotal int
	for o := range objects {
		var w bytes.Buffer
		for i := range perObject {
			benchLine(&w, rng, o*perObject+i, 20_000)
		}
		key := fmt.Sprintf("2026/08/21/12/%04d.jsonl", o)
		store.keys = append(store.keys, key)
		store.objs[key] = w.Bytes()
		bytesTotal += w.Len()
	}
	b.SetBytes(int64(bytesTotal))
	var cpu float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s, err := New(Config{Store: store, Now: func() time.Time { return store.t }})
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuSeconds()
		b.StartTimer()
		if err := s.Poll(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuSeconds() - c0
	}
	events := float64(objects * perObject * b.N)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(events/b.Elapsed().Seconds()/100_000, "x-target")
	if cpu > 0 {
		// CPU seconds count the GC's work on other threads too.
		b.ReportMetric(events/cpu, "events/cpu-s")
		b.ReportMetric(events/cpu/100_000, "x-target-cpu")
	}
}

// BenchmarkDayAtTenMillionEvents feeds a day of 10 million events over
// 100,000 paths (Zipf-like) from 2 million visitors, in polls every 30 s,
// into one project with the default caps, then reports the heap in use
// (sketches, dedup ids, series) and the Snapshot's size. Run it with
// -benchtime=1x: one iteration is one day.
func BenchmarkDayAtTenMillionEvents(b *testing.B) {
	const events, paths, visitors = 10_000_000, 100_000, 2_000_000
	const polls = 24 * 3600 / 30
	for range b.N {
		s, err := New(Config{Store: &benchStore{}, Projects: map[string]string{"acme": "p1"}})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		day := time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)
		view := s.parser.emap.byType["docs.content.view"]
		pathNames := make([]string, paths)
		for i := range pathNames {
			pathNames[i] = fmt.Sprintf("/docs/section-%d/page-%d", i%50, i)
		}
		res := &objectResult{refused: map[string]int64{}}
		n := 0
		for poll := range polls {
			now := day.Add(time.Duration(poll) * 30 * time.Second)
			res.recs = res.recs[:0]
			for ; n < events*(poll+1)/polls; n++ {
				var rec record
				rec.id[0], rec.id[1], rec.id[2], rec.id[3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
				rec.sub, rec.event, rec.m = "acme", "docs.content.view", view
				rec.path = pathNames[zipf(rng, paths)]
				rec.traffic = [...]string{"human", "human", "human", "ai", "training"}[n%5]
				rec.ref = [...]string{"none", "www.google.com", "github.com"}[n%3]
				rec.visitor, rec.hasVisit = hash64(fmt.Sprint(rng.IntN(visitors))), true
				rec.created = now
				res.recs = append(res.recs, rec)
			}
			s.mu.Lock()
			s.apply(s.st, res, now)
			if poll%20 == 19 {
				s.expire(s.st, now)
			}
			s.mu.Unlock()
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		snap, err := s.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(len(snap))/(1<<20), "snapshot-MiB")
		b.ReportMetric(float64(len(s.st.ids)), "ids")
		series := 0
		for k := range s.st.counters {
			if strings.HasPrefix(famInfo[k.f].name, "mintlify_stream_page_views") {
				series++
			}
		}
		b.ReportMetric(float64(series), "page-series")
		runtime.KeepAlive(s)
	}
}
