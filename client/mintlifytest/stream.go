package mintlifytest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"time"
)

// StreamWriter writes analytics events as the vendor's S3 stream does
// (newline-delimited JSON objects whose names sort by time), and what goes
// wrong with them, to a Putter; it keeps the exact truth a correct reader
// must reach, returned by Expect. It is deterministic for a seed and not
// safe for concurrent use.
type StreamWriter struct {
	p      Putter
	prefix string
	rng    *rand.Rand

	next     time.Time // created_at of the next event
	visitors map[string][]streamVisitor
	viewed   map[string]bool   // subdomain|day|visitor: has a counted page view
	lastPath map[string]string // subdomain|visitor: the path of their last counted page view
	keys     []string
	truth    StreamTruth
	dayVis   map[string]map[string]map[string]bool            // subdomain → day → visitor
	pageVis  map[string]map[string]map[string]map[string]bool // subdomain → day → path → visitor
}

// StreamOptions shapes one batch of StreamWriter.Write.
type StreamOptions struct {
	// Events is the number of distinct events to write (duplicates and
	// refused lines come on top); 0 means 500.
	Events int
	// Subdomains are the deployments the events come from; nil means
	// {"acme", "globex"}.
	Subdomains []string
	// Paths is the number of page paths per deployment; 0 means 20.
	Paths int
	// Start is the created_at of the batch's first event; zero continues
	// after the previous batch (2026-03-02T10:00:00Z for the first).
	Start time.Time
	// Every is the time between two events; 0 means 2s.
	Every time.Duration
	// PerObject is the number of events per object; 0 means 100.
	PerObject int
	// Faults is what goes wrong in the batch.
	Faults StreamFaults
}

// StreamFaults picks what goes wrong in a batch. Every fault is written in
// a way whose outcome for a correct reader is exact (see StreamTruth).
type StreamFaults struct {
	// Duplicates is the number of events written a second time, in the
	// next object (same event_id, the other payload form).
	Duplicates int
	// Late writes one object after the one that follows it in time, so its
	// key sorts before a key already written (a batch of two objects or
	// more).
	Late bool
	// Gzip writes one object gzip-compressed with Content-Encoding gzip.
	Gzip bool
	// Truncated cuts the last line of the batch's last object short,
	// without its newline.
	Truncated bool
	// HugeLine adds a line of more than 10 MB (refused as too long).
	HugeLine bool
	// Malformed is the number of lines that are not JSON: an HTML error
	// page, half a line.
	Malformed int
	// BadPayload is the number of lines whose payload is a string that is
	// not JSON.
	BadPayload int
	// MissingEventID is the number of events without event_id (refused).
	MissingEventID int
	// Vanishing writes one object that is deleted between the reader's
	// list and get: with *S3 by S3.VanishAfterList; with any other Putter
	// the object is deleted right after it is written. Its events are
	// never counted.
	Vanishing bool
}

// AllStreamFaults returns a StreamFaults with every fault.
func AllStreamFaults() StreamFaults {
	return StreamFaults{Duplicates: 3, Late: true, Gzip: true, Truncated: true, HugeLine: true,
		Malformed: 2, BadPayload: 2, MissingEventID: 1, Vanishing: true}
}

// Refusal reasons of StreamTruth.Refused: the values of
// mintlify_stream_lines_refused_total's reason label (package stream).
const (
	RefusedMalformed      = "malformed_line"      // not a JSON object envelope
	RefusedTruncated      = "truncated_last_line" // an object's last line, without newline, cut short
	RefusedBadPayload     = "payload_not_json"    // a payload string that is not a JSON object
	RefusedMissingEventID = "missing_event_id"    // a payload without event_id
	RefusedTooLong        = "oversized_line"      // a line longer than the reader's limit (the writer's is over 10 MB)
)

// StreamTruth is what a correct reader of everything a StreamWriter wrote
// must count. Maps are keyed by subdomain first; days are UTC dates
// (2006-01-02) of created_at.
type StreamTruth struct {
	// Objects read (vanished ones excluded), and their lines (every line,
	// refused and duplicate ones included).
	Objects, Lines int64
	// Duplicates is the number of lines whose event_id was already counted.
	Duplicates int64
	// Vanished is the number of objects a listing returned that were gone
	// when the reader got them (Vanishing with *S3; with other Putters a
	// vanishing object is deleted before any listing, and not counted).
	Vanished int64
	// Refused counts lines by reason (Refused* constants).
	Refused map[string]int64
	// Events counts events by subdomain and eventType, each event_id once.
	Events map[string]map[string]int64
	// PageViews counts page and Markdown views by subdomain, path and
	// traffic class (human, ai, search_index, training, other_ai).
	PageViews map[string]map[string]map[string]int64
	// Referrals counts page and Markdown views by subdomain and referrer
	// host ("none" without a referrer).
	Referrals map[string]map[string]int64
	// Visitors is the number of distinct visitors by subdomain and day.
	// A visitor is anon_id, or user_id for authenticated visitors without
	// anon_id; both are constant per visitor, so either key gives the same
	// count. Every visitor with an event on a day has a page view that day.
	Visitors map[string]map[string]int
	// PageVisitors is the number of distinct visitors by subdomain, day
	// and path of their page views.
	PageVisitors map[string]map[string]map[string]int
	// Searches and SearchResultClicks count search queries and result
	// clicks; SearchTerms counts queries by their (lower-case) text.
	Searches, SearchResultClicks map[string]int64
	SearchTerms                  map[string]map[string]int64
	// Feedback counts thumbs by subdomain, path and kind (thumbs_up,
	// thumbs_down). Every event but a view happens on the page its visitor
	// viewed last, so a page's feedback follows a view of it in key order
	// (unless a Late object holds that view and the reader read the next
	// object first).
	Feedback map[string]map[string]map[string]int64
	// AssistantConversations and AssistantErrors count assistant events.
	AssistantConversations, AssistantErrors map[string]int64
	// MCPToolCalls counts MCP tool calls by subdomain and tool.
	MCPToolCalls map[string]map[string]int64
	// ContextMenuActions counts context menu actions by subdomain and action.
	ContextMenuActions map[string]map[string]int64
	// NewestEvent is the latest created_at of a counted event.
	NewestEvent time.Time
}

// NewStreamWriter returns a writer of objects named prefix+NAME.jsonl
// into p, deterministic for seed.
func NewStreamWriter(p Putter, prefix string, seed int64) *StreamWriter {
	return &StreamWriter{
		p: p, prefix: prefix,
		rng:      rand.New(rand.NewPCG(uint64(seed), 0x5eed5743)),
		next:     time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC),
		visitors: map[string][]streamVisitor{},
		viewed:   map[string]bool{},
		lastPath: map[string]string{},
		dayVis:   map[string]map[string]map[string]bool{},
		pageVis:  map[string]map[string]map[string]map[string]bool{},
		truth:    newStreamTruth(),
	}
}

func newStreamTruth() StreamTruth {
	return StreamTruth{
		Refused: map[string]int64{}, Events: map[string]map[string]int64{},
		PageViews: map[string]map[string]map[string]int64{}, Referrals: map[string]map[string]int64{},
		Visitors: map[string]map[string]int{}, PageVisitors: map[string]map[string]map[string]int{},
		Searches: map[string]int64{}, SearchResultClicks: map[string]int64{}, SearchTerms: map[string]map[string]int64{},
		Feedback: map[string]map[string]map[string]int64{}, AssistantConversations: map[string]int64{},
		AssistantErrors: map[string]int64{}, MCPToolCalls: map[string]map[string]int64{},
		ContextMenuActions: map[string]map[string]int64{},
	}
}

// Keys returns the keys of every object written, vanished ones included,
// in the order they were written.
func (w *StreamWriter) Keys() []string { return append([]string(nil), w.keys...) }

// Next returns the created_at the next batch starts at by default.
func (w *StreamWriter) Next() time.Time { return w.next }

// Expect returns the truth of everything written so far (a deep copy).
func (w *StreamWriter) Expect() StreamTruth {
	var t StreamTruth
	b, _ := json.Marshal(w.truth) // plain maps and numbers: cannot fail
	_ = json.Unmarshal(b, &t)
	t.NewestEvent = w.truth.NewestEvent
	return t
}

// streamVisitor is one visitor of a deployment: anon_id, user_id or both,
// the same on every event.
type streamVisitor struct {
	anon, user string
	ua         streamAgent
}

func (v streamVisitor) id() string {
	if v.anon != "" {
		return v.anon
	}
	return v.user
}

// streamAgent is a user agent whose traffic class is unambiguous.
type streamAgent struct {
	ua, class string
}

// streamAgents are the user agents the writer uses, by traffic class
// (stream/traffic-rules.yml classifies each of them as listed here).
var streamAgents = []streamAgent{
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "human"},
	{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "human"},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "human"},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "ai"},
	{"Claude-User/1.0 (+Claude-User@anthropic.com)", "ai"},
	{"Cursor/1.4.2 (Linux x86_64)", "ai"},
	{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "search_index"},
	{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "search_index"},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot", "search_index"},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot", "training"},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "training"},
	{"CCBot/2.0 (https://commoncrawl.org/faq/)", "training"},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "other_ai"},
}

// markdownClass is the traffic class of a Markdown view by a client of
// class c: AI unless the client is a known crawler.
func markdownClass(c string) string {
	if c == "human" {
		return "ai"
	}
	return c
}

// Event types the writer uses (docs.content.view is published; the others
// are the names assumed in stream/event-map.yml).
const (
	evView          = "docs.content.view"
	evMarkdownView  = "docs.content.markdown_view"
	evNavClick      = "docs.navigation.item_click"
	evCTAClick      = "docs.navigation.cta_click"
	evSearch        = "docs.search.query"
	evSearchClick   = "docs.search.result_click"
	evAccordion     = "docs.component.accordion_open"
	evCodeCopy      = "docs.component.code_block_copy"
	evThumbsUp      = "docs.feedback.thumbs_up"
	evThumbsDown    = "docs.feedback.thumbs_down"
	evAssistantChat = "docs.assistant.conversation"
	evAssistantErr  = "docs.assistant.error"
	evContextMenu   = "docs.context_menu.action"
	evMCPToolCall   = "docs.mcp.tool_call"
	evUnknown       = "docs.experiment.variant_shown" // a type no table knows
)

// streamMix is the share of each event type, in thousandths.
var streamMix = []struct {
	event  string
	weight int
}{
	{evView, 430}, {evMarkdownView, 90}, {evNavClick, 60}, {evCTAClick, 20},
	{evSearch, 80}, {evSearchClick, 50}, {evAccordion, 30}, {evCodeCopy, 30},
	{evThumbsUp, 30}, {evThumbsDown, 15}, {evAssistantChat, 40}, {evAssistantErr, 10},
	{evContextMenu, 30}, {evMCPToolCall, 60}, {evUnknown, 25},
}

var (
	streamReferrers = []string{"", "", "https://duckduckgo.com/", "https://chatgpt.com/", "https://github.com/acme/sdk/blob/main/README.md",
		"https://news.ycombinator.com/item?id=4242", "https://stackoverflow.com/questions/1/how-to", "https://lobste.rs/s/q1w2e3/docs"}
	streamTerms   = []string{"authentication", "rate limits", "webhooks", "api key", "pagination", "sdk"}
	streamTools   = []string{"search", "get_page", "list_pages"}
	streamActions = []string{"copy_page", "view_markdown", "open_in_chatgpt", "open_in_claude"}
)

// streamEvent is one event the writer generates.
type streamEvent struct {
	typ     string
	payload map[string]any
}

// Write writes one batch as o says: Events events over objects of
// PerObject events, with o.Faults. It stops at the first error of the
// Putter.
func (w *StreamWriter) Write(ctx context.Context, o StreamOptions) error {
	if o.Events <= 0 {
		o.Events = 500
	}
	if len(o.Subdomains) == 0 {
		o.Subdomains = []string{"acme", "globex"}
	}
	if o.Paths <= 0 {
		o.Paths = 20
	}
	if !o.Start.IsZero() {
		w.next = o.Start.UTC()
	}
	if o.Every <= 0 {
		o.Every = 2 * time.Second
	}
	if o.PerObject <= 0 {
		o.PerObject = 100
	}
	f := o.Faults
	r := w.rng

	// Distinct events, in time order, cut into objects named after the
	// time of their last event.
	var objects [][]streamLine
	var objTimes []time.Time
	var cur []streamLine
	for i := 0; i < o.Events; i++ {
		at := w.next
		w.next = w.next.Add(o.Every)
		e := w.event(o, at, true)
		cur = append(cur, w.line(e, r.IntN(2)))
		if len(cur) == o.PerObject || i == o.Events-1 {
			objects = append(objects, cur)
			objTimes = append(objTimes, at)
			cur = nil
		}
	}
	batchStart := objTimes[0]

	// Duplicates: an event again in the next object, in the other payload
	// form (an object of its own when the batch has one object).
	if f.Duplicates > 0 && len(objects) == 1 {
		objects = append(objects, nil)
		objTimes = append(objTimes, objTimes[0].Add(time.Second))
	}
	for k := 0; k < f.Duplicates; k++ {
		i := r.IntN(len(objects) - 1)
		src := objects[i]
		if len(src) == 0 {
			continue
		}
		d := src[r.IntN(len(src))]
		dup := w.line(d.ev, 1-d.form)
		objects[i+1] = insertAt(objects[i+1], r.IntN(len(objects[i+1])+1), dup)
		w.truth.Duplicates++
	}

	// Refused lines, anywhere.
	refuse := func(reason, text string) {
		i := r.IntN(len(objects))
		objects[i] = insertAt(objects[i], r.IntN(len(objects[i])+1), streamLine{text: text})
		w.truth.Refused[reason]++
	}
	ghost := func() streamEvent {
		return w.event(o, batchStart.Add(time.Duration(r.IntN(1000))*time.Millisecond), false)
	}
	for k := 0; k < f.Malformed; k++ {
		if k%2 == 0 {
			refuse(RefusedMalformed, "<html><body>502 Bad Gateway</body></html>")
		} else {
			l := w.line(ghost(), 0).text
			refuse(RefusedMalformed, l[:len(l)/2])
		}
	}
	for k := 0; k < f.BadPayload; k++ {
		e := ghost()
		payload := "not json"
		if k%2 == 1 {
			b, _ := json.Marshal(e.payload)
			payload = string(b[:len(b)/2])
		}
		b, _ := json.Marshal(map[string]any{"eventType": e.typ, "payload": payload})
		refuse(RefusedBadPayload, string(b))
	}
	for k := 0; k < f.MissingEventID; k++ {
		e := ghost()
		delete(e.payload, "event_id")
		refuse(RefusedMissingEventID, w.line(e, k%2).text)
	}
	if f.HugeLine {
		e := ghost()
		e.typ, e.payload["event"] = evAssistantChat, evAssistantChat
		e.payload["properties"] = map[string]any{"query": "summarize everything", "response": strings.Repeat("lorem ipsum ", hugeLineBytes/12+1)}
		refuse(RefusedTooLong, w.line(e, 0).text)
	}
	truncated := false
	if f.Truncated {
		l := w.line(ghost(), 0).text
		last := len(objects) - 1
		objects[last] = append(objects[last], streamLine{text: l[:len(l)/2]})
		w.truth.Refused[RefusedTruncated]++
		truncated = true
	}

	// Which object is gzipped and which is late.
	gz, late := -1, -1
	if f.Late && len(objects) >= 2 {
		late = len(objects) - 2
	}
	if f.Gzip {
		gz = 0
		if gz == late && len(objects) > 2 {
			gz = 1
		}
	}
	order := make([]int, 0, len(objects))
	for i := range objects {
		if i != late {
			order = append(order, i)
		}
	}
	if late >= 0 {
		order = append(order, late)
	}
	for n, i := range order {
		enc := ""
		if i == gz {
			enc = "gzip"
		}
		if err := w.put(ctx, objTimes[i], objects[i], enc, truncated && i == len(objects)-1); err != nil {
			return err
		}
		if n == 0 && f.Vanishing {
			if err := w.vanishing(ctx, o, objTimes[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// hugeLineBytes is the length of the HugeLine fault's line, at least.
const hugeLineBytes = 10<<20 + 1024

// streamLine is one line of an object, and the event it carries.
type streamLine struct {
	text string
	ev   streamEvent
	form int // 0: payload as an object, 1: as a JSON string
}

func insertAt(ls []streamLine, i int, l streamLine) []streamLine {
	ls = append(ls, streamLine{})
	copy(ls[i+1:], ls[i:])
	ls[i] = l
	return ls
}

// vanishingLister is implemented by *S3.
type vanishingLister interface{ VanishAfterList(key string) }

// vanishing writes an object that is gone when the reader gets it.
func (w *StreamWriter) vanishing(ctx context.Context, o StreamOptions, t time.Time) error {
	var lines []streamLine
	for i := 0; i < 5; i++ {
		lines = append(lines, w.line(w.event(o, t.Add(time.Duration(i)*time.Millisecond), false), i%2))
	}
	key := w.objectName(t.Add(time.Millisecond))
	v, direct := w.p.(vanishingLister)
	if direct {
		v.VanishAfterList(key)
		w.truth.Vanished++
	}
	if err := w.p.PutObject(ctx, key, joinLines(lines, false), ""); err != nil {
		return fmt.Errorf("stream writer: put %s: %w", key, err)
	}
	w.keys = append(w.keys, key)
	if !direct {
		if err := w.p.DeleteObject(ctx, key); err != nil {
			return fmt.Errorf("stream writer: delete %s: %w", key, err)
		}
	}
	return nil
}

// event generates the next event of the batch and, when counted, records
// it in the truth.
func (w *StreamWriter) event(o StreamOptions, at time.Time, counted bool) streamEvent {
	r := w.rng
	sub := o.Subdomains[r.IntN(len(o.Subdomains))]
	v := w.visitor(sub)
	day := at.Format(time.DateOnly)
	typ := pickWeighted(r)
	if counted && !w.viewed[sub+"|"+day+"|"+v.id()] {
		typ = evView // every visitor of a day views a page first
	}
	if typ == evView && v.ua.class != "human" && r.IntN(3) == 0 {
		typ = evMarkdownView
	}
	path := streamPath(r, o.Paths)
	if last := w.lastPath[sub+"|"+v.id()]; counted && last != "" && typ != evView && typ != evMarkdownView {
		path = last // what a visitor does happens on the page they viewed last
	}
	ref := streamReferrers[r.IntN(len(streamReferrers))]
	props := map[string]any{}
	switch typ {
	case evView, evMarkdownView:
		props["title"] = strings.ToUpper(path[1:2]) + strings.ReplaceAll(path[2:], "-", " ")
	case evNavClick:
		props["item"] = streamPath(r, o.Paths)
	case evCTAClick:
		props["label"] = "Get started"
		props["href"] = "https://app.example.com/signup"
	case evSearch:
		props["query"] = streamTerms[r.IntN(len(streamTerms))]
	case evSearchClick:
		props["query"] = streamTerms[r.IntN(len(streamTerms))]
		props["result_path"] = streamPath(r, o.Paths)
	case evThumbsUp, evThumbsDown:
		if r.IntN(2) == 0 {
			props["comment"] = "contact me at someone@example.com"
		}
	case evAssistantChat:
		props["query"] = "how do I rotate my api key?"
		props["response"] = "Open the dashboard settings and create a new key."
	case evAssistantErr:
		props["error"] = "upstream timeout"
	case evContextMenu:
		props["action"] = streamActions[r.IntN(len(streamActions))]
	case evMCPToolCall:
		props["tool"] = streamTools[r.IntN(len(streamTools))]
	case evUnknown:
		props["variant"] = "b"
	}
	p := map[string]any{
		"event_id":   streamUUID(r),
		"subdomain":  sub,
		"user_id":    v.user,
		"anon_id":    v.anon,
		"session_id": fmt.Sprintf("s_%s_%s", v.id()[:8], day),
		"created_at": at.Format("2006-01-02T15:04:05.000Z"),
		"event":      typ,
		"path":       path,
		"referrer":   ref,
		"user_agent": v.ua.ua,
		"ip":         fmt.Sprintf("203.0.113.%d", 1+r.IntN(254)),
		"properties": props,
	}
	if ref == "" && r.IntN(2) == 0 {
		delete(p, "referrer") // "when available"
	}
	if v.anon == "" {
		delete(p, "anon_id")
	}
	if r.IntN(2) == 0 { // properties as a JSON string
		b, _ := json.Marshal(props)
		p["properties"] = string(b)
	}
	e := streamEvent{typ: typ, payload: p}
	if counted {
		w.count(sub, day, v, typ, path, ref, props, at)
	}
	return e
}

// count records a counted event in the truth.
func (w *StreamWriter) count(sub, day string, v streamVisitor, typ, path, ref string, props map[string]any, at time.Time) {
	t := &w.truth
	inc(t.Events, sub, typ)
	mark(w.dayVis, sub, day, v.id())
	switch typ {
	case evView, evMarkdownView:
		class := v.ua.class
		if typ == evMarkdownView {
			class = markdownClass(class)
		}
		if t.PageViews[sub] == nil {
			t.PageViews[sub] = map[string]map[string]int64{}
		}
		inc(t.PageViews[sub], path, class)
		inc(t.Referrals, sub, referrerHost(ref))
		w.viewed[sub+"|"+day+"|"+v.id()] = true
		w.lastPath[sub+"|"+v.id()] = path
		if w.pageVis[sub] == nil {
			w.pageVis[sub] = map[string]map[string]map[string]bool{}
		}
		mark(w.pageVis[sub], day, path, v.id())
	case evSearch:
		t.Searches[sub]++
		inc(t.SearchTerms, sub, props["query"].(string))
	case evSearchClick:
		t.SearchResultClicks[sub]++
	case evThumbsUp, evThumbsDown:
		if t.Feedback[sub] == nil {
			t.Feedback[sub] = map[string]map[string]int64{}
		}
		kind := "thumbs_up"
		if typ == evThumbsDown {
			kind = "thumbs_down"
		}
		inc(t.Feedback[sub], path, kind)
	case evAssistantChat:
		t.AssistantConversations[sub]++
	case evAssistantErr:
		t.AssistantErrors[sub]++
	case evMCPToolCall:
		inc(t.MCPToolCalls, sub, props["tool"].(string))
	case evContextMenu:
		inc(t.ContextMenuActions, sub, props["action"].(string))
	}
	if at.After(t.NewestEvent) {
		t.NewestEvent = at
	}
	// Recompute the distinct counts of this subdomain and day.
	if t.Visitors[sub] == nil {
		t.Visitors[sub] = map[string]int{}
	}
	t.Visitors[sub][day] = len(w.dayVis[sub][day])
	if t.PageVisitors[sub] == nil {
		t.PageVisitors[sub] = map[string]map[string]int{}
	}
	if t.PageVisitors[sub][day] == nil {
		t.PageVisitors[sub][day] = map[string]int{}
	}
	if pv := w.pageVis[sub][day][path]; pv != nil {
		t.PageVisitors[sub][day][path] = len(pv)
	}
}

func inc[K comparable](m map[string]map[K]int64, a string, b K) {
	if m[a] == nil {
		m[a] = map[K]int64{}
	}
	m[a][b]++
}

func mark(m map[string]map[string]map[string]bool, a, b, c string) {
	if m[a] == nil {
		m[a] = map[string]map[string]bool{}
	}
	if m[a][b] == nil {
		m[a][b] = map[string]bool{}
	}
	m[a][b][c] = true
}

// referrerHost is the host of a referrer URL, "none" without one.
func referrerHost(ref string) string {
	if ref == "" {
		return "none"
	}
	u, err := url.Parse(ref)
	if err != nil || u.Hostname() == "" {
		return "none"
	}
	return strings.ToLower(u.Hostname())
}

// visitor picks a visitor of sub: mostly returning ones, some new.
func (w *StreamWriter) visitor(sub string) streamVisitor {
	r := w.rng
	vs := w.visitors[sub]
	if len(vs) > 0 && r.IntN(4) != 0 {
		return vs[r.IntN(len(vs))]
	}
	v := streamVisitor{ua: streamAgents[r.IntN(len(streamAgents))]}
	switch r.IntN(5) {
	case 0: // authenticated, with an anon_id too
		v.anon, v.user = streamUUID(r), fmt.Sprintf("user_%06d", r.IntN(1000000))
	case 1: // authenticated without anon_id
		v.user = fmt.Sprintf("user_%06d", r.IntN(1000000))
	default:
		v.anon = streamUUID(r)
	}
	w.visitors[sub] = append(vs, v)
	return v
}

func pickWeighted(r *rand.Rand) string {
	n := r.IntN(1000)
	for _, m := range streamMix {
		if n < m.weight {
			return m.event
		}
		n -= m.weight
	}
	return evView
}

var streamWords = []string{"quickstart", "authentication", "api-reference", "webhooks", "errors", "sdks", "rate-limits", "pagination", "changelog", "guides"}

// streamPath picks one of n paths, the first ones most often.
func streamPath(r *rand.Rand, n int) string {
	i := int(float64(n) * r.Float64() * r.Float64())
	w := streamWords[i%len(streamWords)]
	if i < len(streamWords) {
		return "/" + w
	}
	return fmt.Sprintf("/%s/page-%d", w, i/len(streamWords))
}

func streamUUID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// line writes an event as an envelope, with its payload as an object
// (form 0) or as a JSON string (form 1).
func (w *StreamWriter) line(e streamEvent, form int) streamLine {
	var payload any = e.payload
	if form == 1 {
		b, _ := json.Marshal(e.payload)
		payload = string(b)
	}
	b, _ := json.Marshal(map[string]any{"eventType": e.typ, "payload": payload})
	return streamLine{text: string(b), ev: e, form: form}
}

func joinLines(lines []streamLine, cutLast bool) []byte {
	var body bytes.Buffer
	n := len(lines)
	for _, l := range lines {
		n += len(l.text)
	}
	body.Grow(n)
	for i, l := range lines {
		body.WriteString(l.text)
		if !cutLast || i < len(lines)-1 {
			body.WriteByte('\n')
		}
	}
	return body.Bytes()
}

// objectName is prefix + a UTC timestamp that sorts by time + a random
// suffix + .jsonl.
func (w *StreamWriter) objectName(t time.Time) string {
	return fmt.Sprintf("%s%s-%08x.jsonl", w.prefix, t.UTC().Format("20060102T150405.000Z"), w.rng.Uint32())
}

// put writes one object of lines, the last without its newline when
// cutLast, and counts it as read.
func (w *StreamWriter) put(ctx context.Context, t time.Time, lines []streamLine, encoding string, cutLast bool) error {
	key := w.objectName(t)
	b := joinLines(lines, cutLast)
	if encoding == "gzip" {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		_, _ = zw.Write(b)
		_ = zw.Close()
		b = z.Bytes()
	}
	if err := w.p.PutObject(ctx, key, b, encoding); err != nil {
		return fmt.Errorf("stream writer: put %s: %w", key, err)
	}
	w.keys = append(w.keys, key)
	w.truth.Objects++
	w.truth.Lines += int64(len(lines))
	return nil
}
