package stream_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Personal data stays in the bucket: no value of ip, user/session/anon
// ids, user agent, assistant or feedback text reaches the exposition, the
// log, Status or the Snapshot.
func TestPersonalDataStaysInTheBucket(t *testing.T) {
	r := newRig(t, nil)
	secrets := []string{
		"198.51.100.23", "user-SECRET-7f3a", "sess-SECRET-19c2", "anon-SECRET-88d1",
		"Mozilla/5.0 SECRETBROWSER/9.9", "how do I rotate my SECRET key", "the SECRET answer",
		"SECRET feedback comment", "alice.secret@example.com",
	}
	line := func(id, typ, props string) string {
		return fmt.Sprintf(`{"eventType":%q,"payload":{"event_id":%q,"subdomain":"acme","user_id":"user-SECRET-7f3a",`+
			`"anon_id":"anon-SECRET-88d1","session_id":"sess-SECRET-19c2","ip":"198.51.100.23","user_agent":"Mozilla/5.0 SECRETBROWSER/9.9",`+
			`"path":"/a?email=alice.secret@example.com","referrer":"https://example.org/?u=alice.secret@example.com","properties":%s}}`, typ, id, props)
	}
	body := strings.Join([]string{
		line("p1", "docs.content.view", `{}`),
		line("p2", "docs.assistant.conversation", `{"query":"how do I rotate my SECRET key","response":"the SECRET answer"}`),
		line("p3", "docs.feedback.submit", `{"comment":"SECRET feedback comment","email":"alice.secret@example.com"}`),
		line("p4", "docs.search.query", `{"query":"how do I rotate my SECRET key"}`),
		line("p5", "docs.unknown.kind", `"{\"text\":\"the SECRET answer\"}"`),
		line("p6", "docs.content.view", `[1]`), // refused: logged
		`{"eventType":"docs.content.view","payload":"not json SECRET"}`,
	}, "\n") + "\n"
	r.put("k/1", []byte(body))
	r.store.listErr = nil
	r.poll()
	r.put("k/2", []byte(body))
	r.store.openErr["k/2"] = fmt.Errorf("read: connection reset")
	r.poll()
	if err := r.src.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap, err := r.src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	exposition := gatherText(t, r)
	status := fmt.Sprintf("%+v", r.src.Status())
	if r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view") != 1 {
		t.Fatal("the test's events were not counted")
	}
	for _, where := range []struct{ name, text string }{
		{"exposition", exposition}, {"log", r.logs.String()}, {"status", status}, {"snapshot", string(snap)},
	} {
		for _, s := range secrets {
			if strings.Contains(where.text, s) || strings.Contains(where.text, "SECRET") {
				t.Errorf("the %s holds personal data (%q):\n%s", where.name, s, where.text)
				break
			}
		}
	}
}
