package mintlifytest

import (
	"fmt"
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
	// SearchTerms is the number of distinct search terms (default 80).
	SearchTerms int
	// TurnsPerDay is the average number of assistant conversation turns a
	// day (default 30).
	TurnsPerDay int
}

// Generate returns a synthetic dataset that looks like a documentation
// site's traffic, with every signal of Dataset filled: unique visitors with realistic paths (/, /quickstart, /api-reference/...,
// /guides/...; synthetic /docs/section-N/page-M once those run out), a
// Zipf-like popularity where a few pages get most visitors, a human/AI mix
// that varies by page (API reference pages draw more AI), fewer humans at
// weekends, and day-to-day noise; page views from the visitors (a few views
// per visitor, some traffic of neither kind); assistant queries by caller
// (with some of no known caller); feedback on up to 300 of the most
// visited pages; search terms with hits and clicks (some never clicked);
// and conversation turns of both response types (some without one) and
// both resolutions (some null). It is deterministic for given options (with
// a non-zero End); the visitors do not depend on the other signals.
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
	if o.SearchTerms <= 0 {
		o.SearchTerms = 80
	}
	if o.TurnsPerDay <= 0 {
		o.TurnsPerDay = 30
	}
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
	generateExtras(d, o, first, cols)
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

// generateExtras fills the signals other than unique visitors: page views
// from the visitors (a few views per visitor, a little traffic of neither
// kind), the assistant's queries by caller, feedback on the most visited
// pages, search terms and conversation turns. It draws from its own stream
// of the seed, so the visitors are the same as without it.
func generateExtras(d *Dataset, o GenerateOptions, first int32, cols []*dayColumns) {
	// One generator, drawn from in this order: a seed's dataset never changes.
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x6578747261))
	x := d.ext()
	generateViews(x, rng, first, cols, len(d.paths))
	generateFeedback(x, rng, first, len(cols), len(d.paths))
	generateSearches(x, rng, first, len(cols), d.paths, o.SearchTerms)
	for k := range cols {
		generateTurns(x, rng, dayTime(first+int32(k)), o.TurnsPerDay, d.paths)
	}
	x.sorted = false
}

// generateViews makes views from visitors with a views-per-visitor factor
// per page and some noise per day, and the assistant's queries: about one
// per 40 human visitors.
func generateViews(x *extras, rng *rand.Rand, first int32, cols []*dayColumns, n int) {
	perVisitor := make([]float64, n)
	for i := range perVisitor {
		perVisitor[i] = 1.2 + 1.3*rng.Float64()
	}
	for k, c := range cols {
		dn := first + int32(k)
		v := &dayColumns{human: make([]int32, n), ai: make([]int32, n), total: make([]int32, n)}
		var humans int64
		for i := range n {
			h := int32(float64(c.human[i])*perVisitor[i] + rng.Float64())
			a := int32(float64(c.ai[i])*(perVisitor[i]+0.8) + rng.Float64())
			other := int32(0)
			if rng.IntN(20) == 0 {
				other = 1 + int32(rng.IntN(3))
			}
			v.human[i], v.ai[i], v.total[i] = h, a, h+a+other
			humans += int64(c.human[i])
		}
		x.views[dn] = v

		q := float64(humans)/40*(0.8+0.4*rng.Float64()) + 3
		web := int64(q * 0.7)
		api := int64(q * 0.2)
		other := int64(q * 0.07)
		x.callers[dn] = CallerStats{Web: web, API: api, Other: other, Total: web + api + other + int64(q*0.03)}
	}
}

// generateFeedback puts feedback on up to 300 pages, more on popular ones.
func generateFeedback(x *extras, rng *rand.Rand, first int32, days, n int) {
	fbPaths := min(n, 300)
	for k := range days {
		dn := first + int32(k)
		m := make(map[int32]feedbackCount)
		for i := range fbPaths {
			mean := 4 / math.Pow(float64(i+1), 0.7)
			total := int64(mean*(0.5+rng.Float64()) + rng.Float64())
			if total == 0 {
				continue
			}
			down := int64(float64(total)*0.2*rng.Float64()*2 + 0.5*rng.Float64())
			down = min(down, total)
			code := min(int64(rng.IntN(10)/9), total-down)
			rest := total - down - code
			other := min(int64(rng.IntN(20)/19), rest)
			m[int32(i)] = feedbackCount{up: rest - other, down: down, code: code, total: total}
		}
		x.feedback[dn] = m
	}
}

// generateSearches makes Zipf-like search terms, some without any click
// (content gaps).
func generateSearches(x *extras, rng *rand.Rand, first int32, days int, paths []string, count int) {
	terms := searchTerms(count, rng)
	ctr := make([]float64, len(terms))
	for j, t := range terms {
		if rng.IntN(6) > 0 {
			ctr[j] = 0.1 + 0.8*rng.Float64()
			x.topPage[t] = paths[rng.IntN(min(len(paths), 50))]
		}
	}
	for k := range days {
		dn := first + int32(k)
		m := make(map[string]searchCount, len(terms))
		for j, t := range terms {
			hits := int64(60/math.Pow(float64(j+1), 0.9)*(0.5+rng.Float64()) + rng.Float64())
			if hits == 0 {
				continue
			}
			clicks := min(int64(float64(hits)*ctr[j]+rng.Float64()*boolF(ctr[j] > 0)), hits)
			m[t] = searchCount{hits: hits, clicks: clicks}
		}
		x.searches[dn] = m
	}
}

// generateTurns adds one day's conversation turns, with every response
// type and resolution.
func generateTurns(x *extras, rng *rand.Rand, day time.Time, perDay int, paths []string) {
	turns := int(float64(perDay) * (0.6 + 0.8*rng.Float64()))
	for range turns {
		t := Turn{
			Time:     day.Add(time.Duration(rng.Int64N(int64(24*time.Hour/time.Millisecond))) * time.Millisecond),
			Query:    turnQueries[rng.IntN(len(turnQueries))],
			Response: turnResponses[rng.IntN(len(turnResponses))],
		}
		switch r := rng.IntN(20); {
		case r < 3:
			t.ResponseType = "clarifying_question"
		case r < 5: // absent: an answer
		default:
			t.ResponseType = "answer"
		}
		switch r := rng.IntN(20); {
		case r < 13:
			t.Resolution = "answered"
		case r < 18:
			t.Resolution = "unanswered"
		}
		if rng.IntN(10) < 7 {
			t.QueryCategory = turnCategories[rng.IntN(len(turnCategories))]
		}
		if rng.IntN(10) < 6 {
			p := paths[rng.IntN(min(len(paths), 100))]
			t.PageURL = "https://docs.example.com" + p
			t.Sources = []Source{{Title: p, URL: t.PageURL}}
		}
		x.turnSeq++
		t.ID = makeULID(t.Time, x.turnSeq)
		x.turnIDs[t.ID] = true
		x.turns = append(x.turns, t)
	}
}

// boolF is 1 for true, else 0.
func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// searchTerms returns n distinct search terms, the likely ones first.
func searchTerms(n int, rng *rand.Rand) []string {
	out := make([]string, 0, n)
	seen := make(map[string]bool, n)
	add := func(t string) {
		if len(out) < n && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, t := range []string{"api key", "authentication", "rate limit", "webhooks", "quickstart", "pagination", "custom domain", "sso"} {
		add(t)
	}
	perm := rng.Perm(len(topics))
	for _, i := range perm {
		add(strings.ReplaceAll(topics[i], "-", " "))
	}
	for _, i := range perm {
		add("how to " + strings.ReplaceAll(topics[i], "-", " "))
	}
	for i := 0; len(out) < n; i++ {
		add(fmt.Sprintf("error code %d", 1000+i))
	}
	return out
}

var turnQueries = []string{
	"How do I authenticate API requests?", "What is the rate limit?", "How can I add a custom domain?",
	"Does the API support pagination?", "How do I set up webhooks?", "Where do I find my project id?",
	"Can I use SSO?", "How do I deploy a preview?",
}

var turnResponses = []string{
	"Send your admin key in the Authorization header as a bearer token.",
	"Could you say which endpoint you mean?",
	"Yes: use the limit and offset parameters.",
	"I could not find that in the documentation.",
}

var turnCategories = []string{"authentication", "api", "deployment", "billing", "analytics"}
