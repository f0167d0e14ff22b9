package engine_test

// A world the planner was not built on: traffic that follows
// the working day of three time zones instead of growing evenly through
// the day, a launch-day burst on a few pages, unique visitors that do not
// add up across days (a share of each day's visitors returns on another
// day), and the error of page series scored beside the site totals. The
// day store is filled inside the budget, from nothing. Three runs: every
// unit stretched alike, the engine's plan, and a bound with an unlimited
// budget (every unit at the minimum interval).
//
//	go test -run TestWorldSimulation -v ./engine/

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// worldHourShare is the share of a day's traffic that arrives in UTC hour
// h: the working day (9 to 18 local time) of readers at UTC−5 (half of
// them), UTC+1 (a third) and UTC+8, over a floor of night readers.
func worldHourShare(h int) float64 {
	shares := make([]float64, 24)
	sum := 0.0
	for hour := range 24 {
		v := 0.02
		for _, tz := range []struct {
			offset int
			weight float64
		}{{-5, 0.5}, {1, 1.0 / 3}, {8, 1.0 / 6}} {
			local := (hour + tz.offset + 24) % 24
			if local >= 9 && local < 18 {
				v += tz.weight * math.Sin(math.Pi*float64(local-9+1)/10)
			}
		}
		shares[hour] = v
		sum += v
	}
	return shares[h] / sum
}

// worldSite is one project of the world.
type worldSite struct {
	project string
	paths   int
	launch  int // pages of a launch-day burst, the first ones
	data    *mintlifytest.Dataset
}

// dayVisitors is the whole-day unique visitors of path i on day d.
func (s worldSite) dayVisitors(i, d int) int64 {
	base := 3000 / (i + 1)
	return int64(base + 1 + (i*5+d*11)%7 + (d%7)*base/8)
}

// set writes day d (at time day) as it stands at the end of UTC hour
// `through` (23: the whole day), with the launch burst from 14:00 to 18:00
// UTC on day burstDay: five times the normal traffic of the launch pages.
func (s worldSite) set(day time.Time, d, through, burstDay int) {
	frac := 0.0
	for h := 0; h <= through; h++ {
		frac += worldHourShare(h)
	}
	burst := 0.0
	if d == burstDay {
		for h := 14; h <= min(through, 17); h++ {
			burst += 4 * worldHourShare(h)
		}
	}
	for i := range s.paths {
		f := frac
		if i < s.launch {
			f += burst
		}
		h := int64(math.Floor(float64(s.dayVisitors(i, d)) * f))
		ai := h / 4
		path := fmt.Sprintf("/docs/page-%d", i)
		s.data.Set(day, path, h, ai, h+ai/2)
		s.data.SetViews(day, path, 3*h, 3*ai, 3*(h+ai))
	}
}

type worldResult struct {
	requests, maxInHour, rateLimits int
	siteErr, pageErr                float64
	siteBy                          map[string]float64
}

func runWorld(t *testing.T, minInterval time.Duration, budget, hours int) worldResult {
	t.Helper()
	const days = 31
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	burstDay := days // the second simulated day
	clk := mintlifytest.NewClock(start)
	sites := []worldSite{{project: "docs", paths: 1500, launch: 40}, {project: "api", paths: 600}}
	opts := []mintlifytest.Option{mintlifytest.WithClock(clk.Now)}
	if budget <= client.AnalyticsRequestsPerHour {
		opts = append(opts, mintlifytest.WithRateLimit(client.AnalyticsRequestsPerHour)) // the bound knows no limit
	}
	for i := range sites {
		sites[i].data = mintlifytest.NewDataset()
		sites[i].data.SetReturning(0.4)
		for d := range days {
			sites[i].set(start.AddDate(0, 0, d-days+1), d, 23, burstDay)
		}
		sites[i].set(start, days-1+0, 0, burstDay) // today: its first hour
		opts = append(opts, mintlifytest.WithProject(sites[i].project, sites[i].data))
	}
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
	b := newSimBudget(budget, clk)
	c := simClient(t, srv.URL(), clk, b.allow)
	sources, err := collector.Build([]string{"visitors", "views"}, c, collector.Options{PageSize: 250, MaxPages: 100})
	if err != nil {
		t.Fatal(err)
	}
	var windows []engine.Window
	for _, w := range []string{"1d", "7d", "30d"} {
		windows = append(windows, windowOf(t, w))
	}
	e, err := engine.New(engine.Config{Sources: sources, Projects: []string{"docs", "api"}, Windows: windows,
		MinInterval: minInterval, Budget: b.Budget, Status: health.NewStatus(), Logger: log.NewNopLogger(),
		Now: clk.Now, WaitUntil: clk.WaitUntil, Layer: derived.New(derived.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.Start()
	res := worldResult{siteBy: map[string]float64{}}
	var siteN, pageN int
	siteCount := map[string]int{}
	for minute := 0; minute < hours*60; minute++ {
		e.Touch()
		simSettle(t, e, clk)
		now := clk.Now()
		if minute >= 60 && minute%5 == 0 {
			for _, u := range e.State().Units {
				if u.Source != "visitors" {
					continue
				}
				w := windowOf(t, u.Window)
				truth, rows := srv.Visitors(u.Project, w.Range(now).From.Time(), w.Range(now).To.Time())
				name := strings.TrimSuffix(u.Window, ":site")
				if w.Site {
					got := u.Families["mintlify_visitors_deduplicated"][0].Value
					if truth.Total > 0 {
						rel := math.Abs(got-float64(truth.Total)) / float64(truth.Total)
						res.siteErr += rel
						res.siteBy[name] += rel
						siteN++
						siteCount[name]++
					}
					continue
				}
				// The page series: the truth's top 20 pages.
				got := map[string]float64{}
				for _, s := range u.Families["mintlify_page_visitors_deduplicated"] {
					got[s.Labels[0]] = s.Value
				}
				for _, r := range rows[:min(20, len(rows))] {
					res.pageErr += math.Abs(got[r.Path]-float64(r.Total)) / float64(r.Total)
					pageN++
				}
			}
		}
		next := now.Add(time.Minute)
		if next.Minute() == 0 {
			d := days - 1 + int(next.Sub(start).Hours())/24
			for _, s := range sites {
				if next.Hour() == 0 {
					s.set(next.AddDate(0, 0, -1), d-1, 23, burstDay)
				}
				s.set(next.Truncate(24*time.Hour), d, next.Hour(), burstDay)
			}
		}
		clk.Advance(time.Minute)
	}
	res.siteErr /= float64(max(1, siteN))
	res.pageErr /= float64(max(1, pageN))
	for w := range res.siteBy {
		res.siteBy[w] /= float64(siteCount[w])
	}
	res.requests, res.maxInHour = b.counts()
	for _, r := range srv.Requests() {
		if r.Status == 429 {
			res.rateLimits++
		}
	}
	return res
}

// TestWorldSimulation: in the world above, 2 projects of 1,500 and 600
// paths, visitors and views, 1d 7d 30d, derived windows, 26 hours from
// midnight: the engine keeps every sliding hour within the budget with no
// 429, and its errors are no worse than every unit refreshed alike (the
// same rule at a longer minimum interval that spends the budget) nor than
// the previous release's planner; the unlimited bound shows what the budget
// costs.
func TestWorldSimulation(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates 26 hours three times: make simulate runs it")
	}
	const hours, budget = 26, 90
	runs := []struct {
		name     string
		interval time.Duration
		budget   int
	}{
		// Read directly: visitors' three windows and views' 1d, each a
		// walk of 6 (docs) or 3 (api) pages and its totals: 44 requests.
		{"uniform", uniformInterval(44, budget), budget},
		{"engine", 15 * time.Minute, budget},
		{"bound (unlimited budget)", 15 * time.Minute, 100_000},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| run | requests in %dh | most in any hour | site error | 1d | 7d | 30d | page error (top 20) |\n|---|---|---|---|---|---|---|---|\n", hours)
	results := map[string]worldResult{}
	for _, r := range runs {
		res := runWorld(t, r.interval, r.budget, hours)
		results[r.name] = res
		fmt.Fprintf(&table, "| %s | %d | %d | %.4f | %.4f | %.4f | %.4f | %.4f |\n", r.name, res.requests, res.maxInHour,
			res.siteErr, res.siteBy["1d"], res.siteBy["7d"], res.siteBy["30d"], res.pageErr)
	}
	t.Logf("2 projects (1,500 and 600 paths), visitors and views, 1d 7d 30d, derived windows; 3 time zones, a launch burst, 40 %% returning visitors; %dh from midnight\n%s", hours, table.String())
	for _, name := range []string{"uniform", "engine"} {
		if r := results[name]; r.maxInHour > budget || r.rateLimits > 0 {
			t.Errorf("%s: %d requests in one sliding hour (budget %d), %d answered 429", name, r.maxInHour, budget, r.rateLimits)
		}
	}
	// The engine is no worse than every unit refreshed alike, nor than
	// the previous release's planner (docs/dev/benchmarks.md: site 0.0079,
	// page 0.0123).
	if u, w := results["uniform"], results["engine"]; w.siteErr > u.siteErr || w.pageErr > u.pageErr || w.siteErr > 0.0079 || w.pageErr > 0.0123 {
		t.Errorf("the engine's site and page error %.4f and %.4f: want no more than uniform's %.4f and %.4f, and the previous release's 0.0079 and 0.0123",
			w.siteErr, w.pageErr, u.siteErr, u.pageErr)
	}
}
