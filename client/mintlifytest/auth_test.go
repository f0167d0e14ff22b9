package mintlifytest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestAuth(t *testing.T) {
	const (
		other   = "mint_fedcba9876543210fedcba9876543210"
		rotated = "mint_11112222333344445555666677778888"
	)
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.NewDataset()))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	paths := map[string]string{
		"visitors":  "/v1/analytics/proj/visitors",
		"get_job":   "/v2/agent/proj/job/job1",
		"list_jobs": "/v1/agent/proj/jobs",
	}
	tests := []struct {
		name   string
		auth   string
		status int
	}{
		{"missing", "", http.StatusUnauthorized},
		{"basic scheme", "Basic " + mintlifytest.DefaultKey, http.StatusUnauthorized},
		{"lowercase scheme", "bearer " + mintlifytest.DefaultKey, http.StatusUnauthorized},
		{"no scheme", mintlifytest.DefaultKey, http.StatusUnauthorized},
		{"empty token", "Bearer ", http.StatusUnauthorized},
		{"unknown key", "Bearer " + other, http.StatusUnauthorized},
		{"default key", "Bearer " + mintlifytest.DefaultKey, http.StatusOK},
	}
	for _, tc := range tests {
		for ep, path := range paths {
			t.Run(tc.name+"/"+ep, func(t *testing.T) {
				r := call(t, http.MethodGet, s.URL()+path, tc.auth, "", nil)
				if tc.status == http.StatusOK {
					if r.status != http.StatusOK {
						t.Fatalf("status %d, want 200: %s", r.status, r.body)
					}
					return
				}
				wantError(t, r, tc.status)
				if strings.Contains(string(r.body), mintlifytest.DefaultKey) || strings.Contains(string(r.body), other) {
					t.Errorf("error body reveals the key: %s", r.body)
				}
			})
		}
	}
	reqs := s.Requests()
	if len(reqs) != len(tests)*len(paths) {
		t.Fatalf("logged %d requests, want %d", len(reqs), len(tests)*len(paths))
	}
	for _, r := range reqs {
		if want := r.Status == http.StatusOK; r.Authorized != want {
			t.Errorf("%s with %d: Authorized %v", r.Path, r.Status, r.Authorized)
		}
	}

	t.Run("rotation", func(t *testing.T) {
		s.SetKeys(rotated)
		wantError(t, call(t, http.MethodGet, s.URL()+paths["visitors"], "Bearer "+mintlifytest.DefaultKey, "", nil), http.StatusUnauthorized)
		if r := call(t, http.MethodGet, s.URL()+paths["visitors"], "Bearer "+rotated, "", nil); r.status != http.StatusOK {
			t.Fatalf("rotated key: %d %s", r.status, r.body)
		}
	})
	t.Run("revocation", func(t *testing.T) {
		s.SetKeys(rotated, other)
		s.RevokeKey(rotated)
		wantError(t, call(t, http.MethodGet, s.URL()+paths["get_job"], "Bearer "+rotated, "", nil), http.StatusUnauthorized)
		if r := call(t, http.MethodGet, s.URL()+paths["get_job"], "Bearer "+other, "", nil); r.status != http.StatusOK {
			t.Fatalf("other key: %d %s", r.status, r.body)
		}
		s.SetKeys(rotated)
		if r := call(t, http.MethodGet, s.URL()+paths["get_job"], "Bearer "+rotated, "", nil); r.status != http.StatusOK {
			t.Fatalf("re-issued key: %d %s", r.status, r.body)
		}
	})
}

func TestAuthWithKeys(t *testing.T) {
	s, _ := newServer(t,
		mintlifytest.WithKeys("mint_a", "mint_b", "mint_dsc_assistant", "mint_us_index"),
		mintlifytest.WithProject("one", mintlifytest.NewDataset()),
		mintlifytest.WithProject("two", mintlifytest.NewDataset()),
	)
	for _, key := range []string{"mint_a", "mint_b"} {
		for _, p := range []string{"one", "two"} {
			if r := call(t, http.MethodGet, s.URL()+"/v1/analytics/"+p+"/visitors", "Bearer "+key, "", nil); r.status != http.StatusOK {
				t.Errorf("key %s project %s: %d %s", key, p, r.status, r.body)
			}
		}
	}
	wantError(t, call(t, http.MethodGet, s.URL()+"/v1/analytics/one/visitors", "Bearer "+mintlifytest.DefaultKey, "", nil), http.StatusUnauthorized)
	for _, key := range []string{"mint_dsc_assistant", "mint_us_index"} {
		wantError(t, call(t, http.MethodGet, s.URL()+"/v1/analytics/one/visitors", "Bearer "+key, "", nil), http.StatusForbidden)
	}
}

func TestRoutes(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.NewDataset()))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	auth := "Bearer " + mintlifytest.DefaultKey
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/proj", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/proj/visitors/", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics//visitors", http.StatusNotFound, ""},
		{http.MethodGet, "/v2/analytics/proj/visitors", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/proj/view", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/proj/assistant/threads", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/proj/feedback/by-page/x", http.StatusNotFound, ""},
		{http.MethodPost, "/v1/analytics/proj/searches", http.StatusMethodNotAllowed, http.MethodGet},
		{http.MethodGet, "/v1/analytics/nope/views", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/nope/assistant/caller-stats", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/nope/feedback/by-page", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/nope/searches", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/analytics/nope/assistant", http.StatusNotFound, ""},
		{http.MethodGet, "/v2/agent/proj/job/job1/messages", http.StatusNotFound, ""},
		{http.MethodPost, "/v1/analytics/proj/visitors", http.StatusMethodNotAllowed, http.MethodGet},
		{http.MethodDelete, "/v2/agent/proj/job/job1", http.StatusMethodNotAllowed, http.MethodGet},
		{http.MethodGet, "/v2/agent/proj/job/job1/message", http.StatusMethodNotAllowed, http.MethodPost},
		{http.MethodPost, "/v1/agent/proj/jobs", http.StatusMethodNotAllowed, http.MethodGet},
		{http.MethodGet, "/v2/agent/proj/job", http.StatusMethodNotAllowed, http.MethodPost},
		{http.MethodGet, "/v1/analytics/nope/visitors", http.StatusNotFound, ""},
		{http.MethodGet, "/v1/agent/nope/jobs", http.StatusNotFound, ""},
		{http.MethodGet, "/v2/agent/proj/job/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/v2/agent/nope/job/job1", http.StatusNotFound, ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := call(t, tc.method, s.URL()+tc.path, auth, "application/json", nil)
			wantError(t, r, tc.status)
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
		})
	}
	e := wantError(t, get(t, s, "/v1/analytics/nope/visitors"), http.StatusNotFound)
	if e.Error != "project not found" {
		t.Errorf("unknown project: error %q", e.Error)
	}
	e = wantError(t, get(t, s, "/v2/agent/proj/job/nope"), http.StatusNotFound)
	if e.Error != "Job not found" {
		t.Errorf("unknown job: error %q", e.Error)
	}
}

func TestEscapedPathSegments(t *testing.T) {
	s, _ := newServer(t)
	s.AddJob("my project", mintlifytest.JobSpec{ID: "a/b"})
	if r := get(t, s, "/v2/agent/my%20project/job/a%2Fb"); r.status != http.StatusOK {
		t.Fatalf("escaped ids: %d %s", r.status, r.body)
	}
	wantError(t, get(t, s, "/v2/agent/my%20project/job/a/b"), http.StatusNotFound)
}
