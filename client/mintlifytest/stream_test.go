package mintlifytest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// fakeSigV4 is an Authorization header of the form the S3 fake checks (it
// does not verify signatures).
const fakeSigV4 = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260302/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=" +
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func s3Do(t *testing.T, method, u string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", fakeSigV4)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type listResult struct {
	IsTruncated           bool
	NextContinuationToken string
	KeyCount              int
	Contents              []struct {
		Key          string
		Size         int64
		LastModified string
	}
}

// listAll lists every key under prefix after startAfter, max keys a page.
func listAll(t *testing.T, s *mintlifytest.S3, prefix, startAfter string, max int) []string {
	t.Helper()
	var keys []string
	token := ""
	for pages := 0; ; pages++ {
		q := url.Values{"list-type": {"2"}, "prefix": {prefix}, "max-keys": {itoa(max)}}
		if token != "" {
			q.Set("continuation-token", token)
		} else if startAfter != "" {
			q.Set("start-after", startAfter)
		}
		resp := s3Do(t, "GET", s.URL()+"/"+s.Bucket()+"?"+q.Encode(), nil)
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("list: %d %s", resp.StatusCode, b)
		}
		var res listResult
		if err := xml.NewDecoder(resp.Body).Decode(&res); err != nil {
			t.Fatal(err)
		}
		if res.KeyCount != len(res.Contents) {
			t.Fatalf("KeyCount %d, %d entries", res.KeyCount, len(res.Contents))
		}
		for _, c := range res.Contents {
			keys = append(keys, c.Key)
		}
		if !res.IsTruncated {
			return keys
		}
		token = res.NextContinuationToken
		if token == "" || pages > 1000 {
			t.Fatalf("truncated listing without a usable continuation token")
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// classify is the test's own reading of the published traffic classes.
func classify(ua string, markdown bool) string {
	for _, c := range []struct{ class, pat string }{
		{"search_index", "Googlebot"}, {"search_index", "bingbot"}, {"search_index", "OAI-SearchBot"},
		{"training", "GPTBot"}, {"training", "ClaudeBot"}, {"training", "CCBot"},
		{"other_ai", "PerplexityBot"},
		{"ai", "ChatGPT-User"}, {"ai", "Claude-User"}, {"ai", "Cursor/"},
	} {
		if strings.Contains(ua, c.pat) {
			return c.class
		}
	}
	if markdown {
		return "ai"
	}
	return "human"
}

// readBack reads every object as a reader would (list, get, gunzip, parse
// each line, dedupe by event_id) and counts what StreamTruth counts.
func readBack(t *testing.T, s *mintlifytest.S3) mintlifytest.StreamTruth {
	t.Helper()
	got := mintlifytest.StreamTruth{Refused: map[string]int64{}, Events: map[string]map[string]int64{},
		PageViews: map[string]map[string]map[string]int64{}, Referrals: map[string]map[string]int64{},
		Visitors: map[string]map[string]int{}, PageVisitors: map[string]map[string]map[string]int{},
		Searches: map[string]int64{}, SearchResultClicks: map[string]int64{}, SearchTerms: map[string]map[string]int64{},
		Feedback: map[string]map[string]map[string]int64{}, AssistantConversations: map[string]int64{},
		AssistantErrors: map[string]int64{}, MCPToolCalls: map[string]map[string]int64{},
		ContextMenuActions: map[string]map[string]int64{}}
	inc := func(m map[string]map[string]int64, a, b string) {
		if m[a] == nil {
			m[a] = map[string]int64{}
		}
		m[a][b]++
	}
	seen := map[string]bool{}
	dayVis := map[string]map[string]bool{}
	pageVis := map[string]map[string]bool{}
	for _, key := range listAll(t, s, "", "", 7) {
		resp := s3Do(t, "GET", s.URL()+"/"+s.Bucket()+"/"+key, nil)
		if resp.StatusCode == 404 {
			got.Vanished++ // deleted between list and get
			continue
		}
		if resp.StatusCode != 200 {
			t.Fatalf("get %s: %d", key, resp.StatusCode)
		}
		got.Objects++
		var body io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = z
		}
		br := bufio.NewReaderSize(body, 1<<16)
		for {
			line, err := br.ReadString('\n')
			if line == "" && err == io.EOF {
				break
			}
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			got.Lines++
			if len(line) > 10<<20 {
				got.Refused[mintlifytest.RefusedTooLong]++
				continue
			}
			var env struct {
				EventType string          `json:"eventType"`
				Payload   json.RawMessage `json:"payload"`
			}
			if json.Unmarshal([]byte(line), &env) != nil || env.EventType == "" || env.Payload == nil {
				if strings.HasSuffix(line, "\n") {
					got.Refused[mintlifytest.RefusedMalformed]++
				} else {
					got.Refused[mintlifytest.RefusedTruncated]++
				}
				continue
			}
			raw := []byte(env.Payload)
			var str string
			if json.Unmarshal(raw, &str) == nil {
				raw = []byte(str)
			}
			var p struct {
				EventID    string          `json:"event_id"`
				Subdomain  string          `json:"subdomain"`
				UserID     string          `json:"user_id"`
				AnonID     string          `json:"anon_id"`
				CreatedAt  string          `json:"created_at"`
				Path       string          `json:"path"`
				Referrer   string          `json:"referrer"`
				UserAgent  string          `json:"user_agent"`
				Properties json.RawMessage `json:"properties"`
			}
			if json.Unmarshal(raw, &p) != nil || raw[0] != '{' {
				got.Refused[mintlifytest.RefusedBadPayload]++
				continue
			}
			if p.EventID == "" {
				got.Refused[mintlifytest.RefusedMissingEventID]++
				continue
			}
			if seen[p.EventID] {
				got.Duplicates++
				continue
			}
			seen[p.EventID] = true
			props := map[string]any{}
			praw := []byte(p.Properties)
			if json.Unmarshal(praw, &str) == nil {
				praw = []byte(str)
			}
			if err := json.Unmarshal(praw, &props); err != nil {
				t.Fatalf("properties of %s: %v", p.EventID, err)
			}
			at, err := time.Parse(time.RFC3339Nano, p.CreatedAt)
			if err != nil {
				t.Fatal(err)
			}
			if at.After(got.NewestEvent) {
				got.NewestEvent = at
			}
			sub, day, who := p.Subdomain, at.UTC().Format(time.DateOnly), p.AnonID
			if who == "" {
				who = p.UserID
			}
			inc(got.Events, sub, env.EventType)
			if dayVis[sub+"|"+day] == nil {
				dayVis[sub+"|"+day] = map[string]bool{}
			}
			dayVis[sub+"|"+day][who] = true
			if got.Visitors[sub] == nil {
				got.Visitors[sub] = map[string]int{}
			}
			got.Visitors[sub][day] = len(dayVis[sub+"|"+day])
			switch env.EventType {
			case "docs.content.view", "docs.content.markdown_view":
				if got.PageViews[sub] == nil {
					got.PageViews[sub] = map[string]map[string]int64{}
				}
				inc(got.PageViews[sub], p.Path, classify(p.UserAgent, env.EventType == "docs.content.markdown_view"))
				host := "none"
				if u, err := url.Parse(p.Referrer); p.Referrer != "" && err == nil {
					host = u.Hostname()
				}
				inc(got.Referrals, sub, host)
				k := sub + "|" + day + "|" + p.Path
				if pageVis[k] == nil {
					pageVis[k] = map[string]bool{}
				}
				pageVis[k][who] = true
				if got.PageVisitors[sub] == nil {
					got.PageVisitors[sub] = map[string]map[string]int{}
				}
				if got.PageVisitors[sub][day] == nil {
					got.PageVisitors[sub][day] = map[string]int{}
				}
				got.PageVisitors[sub][day][p.Path] = len(pageVis[k])
			case "docs.search.query":
				got.Searches[sub]++
				inc(got.SearchTerms, sub, props["query"].(string))
			case "docs.search.result_click":
				got.SearchResultClicks[sub]++
			case "docs.feedback.thumbs_up", "docs.feedback.thumbs_down":
				if got.Feedback[sub] == nil {
					got.Feedback[sub] = map[string]map[string]int64{}
				}
				inc(got.Feedback[sub], p.Path, strings.TrimPrefix(env.EventType, "docs.feedback."))
			case "docs.assistant.conversation":
				got.AssistantConversations[sub]++
			case "docs.assistant.error":
				got.AssistantErrors[sub]++
			case "docs.mcp.tool_call":
				inc(got.MCPToolCalls, sub, props["tool"].(string))
			case "docs.context_menu.action":
				inc(got.ContextMenuActions, sub, props["action"].(string))
			}
		}
	}
	// Every visitor of a day viewed a page that day (the writer's promise).
	for k, vs := range dayVis {
		sub, day, _ := strings.Cut(k, "|")
		n := 0
		viewed := map[string]bool{}
		for pk, pv := range pageVis {
			if strings.HasPrefix(pk, sub+"|"+day+"|") {
				for v := range pv {
					viewed[v] = true
				}
			}
		}
		for v := range vs {
			if !viewed[v] {
				n++
			}
		}
		if n > 0 {
			t.Errorf("%s %s: %d visitors without a page view", sub, day, n)
		}
	}
	return got
}

func TestStreamWriterExpectMatchesWhatItWrote(t *testing.T) {
	s := mintlifytest.NewS3("events")
	defer s.Close()
	w := mintlifytest.NewStreamWriter(s, "mintlify/", 7)
	ctx := context.Background()
	if err := w.Write(ctx, mintlifytest.StreamOptions{Events: 700, PerObject: 90, Faults: mintlifytest.AllStreamFaults()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, mintlifytest.StreamOptions{Events: 150, Subdomains: []string{"acme", "initech"}, Every: 10 * time.Minute,
		Faults: mintlifytest.StreamFaults{Duplicates: 2, Malformed: 1, Gzip: true}}); err != nil {
		t.Fatal(err)
	}
	want := w.Expect()
	got := readBack(t, s)
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("read back:\n%s\nwant (Expect):\n%s", gj, wj)
	}
	// The truth has every kind of thing in it, so the comparison above
	// could fail on each.
	for name, n := range map[string]int{
		"objects": int(want.Objects), "vanished": int(want.Vanished), "duplicates": int(want.Duplicates), "malformed": int(want.Refused[mintlifytest.RefusedMalformed]),
		"bad payload": int(want.Refused[mintlifytest.RefusedBadPayload]), "too long": int(want.Refused[mintlifytest.RefusedTooLong]),
		"missing event_id": int(want.Refused[mintlifytest.RefusedMissingEventID]),
		"truncated":        int(want.Refused[mintlifytest.RefusedTruncated]), "mcp": len(want.MCPToolCalls["acme"]),
		"context menu": len(want.ContextMenuActions["acme"]), "feedback": len(want.Feedback["acme"]),
		"assistant errors": int(want.AssistantErrors["acme"]), "search clicks": int(want.SearchResultClicks["acme"]),
		"unknown events": int(want.Events["acme"]["docs.experiment.variant_shown"]), "days": len(want.Visitors["acme"]),
		"initech": len(want.Events["initech"]),
	} {
		if n == 0 {
			t.Errorf("the truth has no %s", name)
		}
	}
	for _, class := range []string{"human", "ai", "search_index", "training", "other_ai"} {
		n := int64(0)
		for _, byClass := range want.PageViews["acme"] {
			n += byClass[class]
		}
		if n == 0 {
			t.Errorf("no %s page views", class)
		}
	}
	if want.Referrals["acme"]["none"] == 0 || want.Referrals["acme"]["chatgpt.com"] == 0 {
		t.Errorf("referrals lack none or chatgpt.com: %v", want.Referrals["acme"])
	}
}

func TestStreamWriterObjectsAreVendorShaped(t *testing.T) {
	s := mintlifytest.NewS3("events")
	defer s.Close()
	w := mintlifytest.NewStreamWriter(s, "pre/", 3)
	if err := w.Write(context.Background(), mintlifytest.StreamOptions{Events: 300, PerObject: 50,
		Faults: mintlifytest.StreamFaults{Late: true, Gzip: true, Truncated: true, Vanishing: true}}); err != nil {
		t.Fatal(err)
	}
	keys := w.Keys()
	lateSeen, gz, stringPayloads, objectPayloads := false, 0, 0, 0
	for i, k := range keys {
		if !strings.HasPrefix(k, "pre/") || !strings.HasSuffix(k, ".jsonl") {
			t.Errorf("key %q: want prefix pre/ and suffix .jsonl", k)
		}
		for _, earlier := range keys[:i] {
			if k < earlier {
				lateSeen = true
			}
		}
		body, ok := s.Object(k)
		if !ok {
			t.Fatalf("%s not stored", k)
		}
		if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
			gz++
			z, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(z)
		}
		stringPayloads += bytes.Count(body, []byte(`"payload":"`))
		objectPayloads += bytes.Count(body, []byte(`"payload":{`))
	}
	if !lateSeen {
		t.Errorf("no key sorts before one written earlier: %v", keys)
	}
	if gz != 1 {
		t.Errorf("%d gzip objects, want 1", gz)
	}
	if stringPayloads == 0 || objectPayloads == 0 {
		t.Errorf("payload forms: %d strings, %d objects; want both", stringPayloads, objectPayloads)
	}
	last, _ := s.Object(keys[len(keys)-2]) // the last in time (the late one was written after it)
	if bytes.HasSuffix(last, []byte("\n")) {
		t.Errorf("the last object ends with a newline; want a truncated last line")
	}
	// Deterministic for a seed.
	s2 := mintlifytest.NewS3("events")
	defer s2.Close()
	w2 := mintlifytest.NewStreamWriter(s2, "pre/", 3)
	if err := w2.Write(context.Background(), mintlifytest.StreamOptions{Events: 300, PerObject: 50,
		Faults: mintlifytest.StreamFaults{Late: true, Gzip: true, Truncated: true, Vanishing: true}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w2.Keys(), keys) || !reflect.DeepEqual(w2.Expect(), w.Expect()) {
		t.Errorf("two writers of seed 3 differ")
	}
}
