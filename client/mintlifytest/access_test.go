package mintlifytest_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestReadOnlyKey(t *testing.T) {
	const ro, wo = "mint_readonly000000000000000000000", "mint_writeonly00000000000000000000"
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.NewDataset()))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	s.SetKeyScopes(ro, mintlifytest.ScopeRead)
	s.SetKeyScopes(wo, mintlifytest.ScopeWrite)
	gets := []string{"/v1/analytics/proj/visitors", "/v2/agent/proj/job/job1", "/v1/agent/proj/jobs"}
	posts := []string{"/v2/agent/proj/job/job1/message", "/v2/agent/proj/job"}
	for _, p := range gets {
		if r := call(t, http.MethodGet, s.URL()+p, "Bearer "+ro, "", nil); r.status != http.StatusOK {
			t.Errorf("read-only key, GET %s: %d %s", p, r.status, r.body)
		}
		if e := wantError(t, call(t, http.MethodGet, s.URL()+p, "Bearer "+wo, "", nil), http.StatusForbidden); !strings.Contains(e.Error, "read scope") {
			t.Errorf("write-only key, GET %s: error %q", p, e.Error)
		}
	}
	for _, p := range posts {
		e := wantError(t, call(t, http.MethodPost, s.URL()+p, "Bearer "+ro, "application/json", []byte(`{"prompt":"x"}`)), http.StatusForbidden)
		if !strings.Contains(e.Error, "write scope") {
			t.Errorf("read-only key, POST %s: error %q", p, e.Error)
		}
		if r := call(t, http.MethodPost, s.URL()+p, "Bearer "+wo, "application/json", []byte(`{"prompt":"x"}`)); r.status/100 != 2 {
			t.Errorf("write-only key, POST %s: %d %s", p, r.status, r.body)
		}
	}
	// Refused POSTs delivered nothing; the accepted one did.
	if got := s.Messages("proj", "job1"); len(got) != 1 {
		t.Errorf("messages %q, want the write-only key's one", got)
	}
	// The default key is not limited; SetKeys clears the limits.
	if r := postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"y"}`); r.status != http.StatusOK {
		t.Errorf("default key: %d %s", r.status, r.body)
	}
	s.SetKeys(ro)
	if r := call(t, http.MethodPost, s.URL()+posts[0], "Bearer "+ro, "application/json", []byte(`{"prompt":"z"}`)); r.status != http.StatusOK {
		t.Errorf("after SetKeys: %d %s", r.status, r.body)
	}
	// A wrong key is still a 401, not a 403.
	wantError(t, call(t, http.MethodPost, s.URL()+posts[0], "Bearer "+wo, "application/json", []byte(`{"prompt":"z"}`)), http.StatusUnauthorized)
}

func TestAllowlist(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.NewDataset()))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	s.SetAllowlist(netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32"))
	for _, p := range []string{"/v1/analytics/proj/visitors", "/v2/agent/proj/job/job1", "/v1/agent/proj/jobs"} {
		if e := wantError(t, get(t, s, p), http.StatusForbidden); !strings.Contains(e.Error, "allowlist") {
			t.Errorf("GET %s: error %q", p, e.Error)
		}
	}
	wantError(t, postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"x"}`), http.StatusForbidden)
	if got := s.Messages("proj", "job1"); len(got) != 0 {
		t.Errorf("a refused message was delivered: %q", got)
	}
	// The key is checked first: a wrong key from anywhere is a 401.
	wantError(t, call(t, http.MethodGet, s.URL()+"/v1/agent/proj/jobs", "Bearer mint_wrong", "", nil), http.StatusUnauthorized)

	s.SetAllowlist(netip.MustParsePrefix("127.0.0.0/8"))
	if r := get(t, s, "/v1/agent/proj/jobs"); r.status != http.StatusOK {
		t.Errorf("allowed address: %d %s", r.status, r.body)
	}
	s.SetAllowlist()
	if r := get(t, s, "/v2/agent/proj/job/job1"); r.status != http.StatusOK {
		t.Errorf("no allowlist: %d %s", r.status, r.body)
	}
}
