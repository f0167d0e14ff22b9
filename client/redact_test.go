package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestKeyEchoedThroughJSONEscapes: an answer that writes the key with JSON
// escapes (mint\u005f..., or every character escaped) decodes to the key;
// the client redacts what the strings decode to, so the key reaches no
// decoded value, no Raw and no error.
func TestKeyEchoedThroughJSONEscapes(t *testing.T) {
	const key = "mint_ESCAPEDsecret0123456789abcdefgh"
	underscore := json.RawMessage(`"/docs/mint\u005f` + key[len("mint_"):] + `"`)
	every := json.RawMessage(escapeAll(key))
	h := jobHarness(t, func(c *client.Config) { c.Key = mustStatic(t, key) }, mintlifytest.WithKeys(key))

	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Times: 1, Mutate: func(b map[string]any) {
		b["model"] = underscore
		b["prLink"] = every
	}})
	job, err := h.c.GetJob(context.Background(), testProject, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(job.Model, key) || strings.Contains(*job.PRLink, key) || !strings.Contains(job.Model, "[redacted]") {
		t.Errorf("decoded job: model %q, prLink %q", job.Model, *job.PRLink)
	}
	var raw map[string]any
	if err := json.Unmarshal(job.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(raw); strings.Contains(string(b), key) {
		t.Errorf("Raw decodes to the key: %s", b)
	}

	// A path of a visitors page.
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Times: 1, Mutate: func(b map[string]any) {
		rows := b["visitors"].([]any)
		rows[0].(map[string]any)["path"] = underscore
	}})
	page, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range page.Rows {
		if strings.Contains(r.Path, key) {
			t.Errorf("a path holds the key: %q", r.Path)
		}
	}
	if page.Rows[0].Path != "/docs/[redacted]" {
		t.Errorf("first path %q, want /docs/[redacted]", page.Rows[0].Path)
	}

	// A value that fails validation, in the error.
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Times: 1, Mutate: func(b map[string]any) {
		b["createdAt"] = every
	}})
	if _, err := h.c.GetJob(context.Background(), testProject, "job-1"); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("an invalid createdAt holding the key: %v", err)
	}
}

// escapeAll writes s as a JSON string with every character escaped.
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		b.WriteString(`\u`)
		b.WriteString(strings.ToUpper(hex4(int(r))))
	}
	b.WriteByte('"')
	return b.String()
}

func hex4(n int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[n>>12&15], digits[n>>8&15], digits[n>>4&15], digits[n&15]})
}

// TestKeyAcrossTheErrorBodyCut: an error answer whose key straddles the
// point where the body is cut (64 KiB), after white space that the message
// collapses, shows no fragment of the key; an answer of many details
// gives a bounded message.
func TestKeyAcrossTheErrorBodyCut(t *testing.T) {
	const key = "mint_CUTsecret0123456789abcdefgh"
	const cut = 64 << 10
	h := jobHarness(t, func(c *client.Config) {
		c.Key = mustStatic(t, key)
		c.Retry.MaxAttempts = 1
	}, mintlifytest.WithKeys(key))
	for _, spaces := range []int{0, cut - len(key) - 1, cut - len(key), cut - len(key) + 1, 65509, cut - 5, cut - 1, cut, cut + 1} {
		body := []byte(strings.Repeat(" ", spaces) + key + " and more")
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Times: 1, Status: 500, BodyBytes: body})
		_, err := h.c.GetJob(context.Background(), testProject, "job-1")
		if err == nil {
			t.Fatalf("%d spaces: no error", spaces)
		}
		for i := 0; i+6 <= len(key); i++ {
			if frag := key[i : i+6]; strings.Contains(err.Error(), frag) {
				t.Errorf("%d spaces: the error shows %q of the key: %.300s", spaces, frag, err)
				break
			}
		}
	}
	details := make([]map[string]string, 2000)
	for i := range details {
		details[i] = map[string]string{"message": "bad field"}
	}
	b, _ := json.Marshal(map[string]any{"error": "invalid", "details": details})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Times: 1, Status: 400, BodyBytes: b})
	_, err := h.c.GetJob(context.Background(), testProject, "job-1")
	if err == nil || len(err.Error()) > 2000 {
		t.Errorf("an answer of 2,000 details: an error of %d bytes, want at most 2000", len(fmt.Sprint(err)))
	}
}
