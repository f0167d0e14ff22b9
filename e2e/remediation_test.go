package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// checkRemediation follows MintlifyPageThumbsDownRising from Prometheus
// through Alertmanager to the exporter's webhook: exactly one job is
// created on the fake, with the page's path in its prompt; the watcher
// exports it and, once the fake completes it, its pull request;
// Alertmanager's repeats create no second job.
func (s *stack) checkRemediation(t *testing.T) {
	if s.thumbsPage == "" {
		t.Fatal("the docs quality alerts did not make a page collect thumbs down")
	}
	var jobID string
	eventually(t, 60*time.Second, "a job created by the remediation webhook", func() string {
		id, err := s.ledgerJob(projectDocs + s.thumbsPage)
		if err != nil {
			return err.Error()
		}
		jobID = id
		return ""
	})
	prompts := s.srv.Messages(projectDocs, jobID)
	if len(prompts) != 1 || !strings.Contains(prompts[0], fmt.Sprintf("%q", s.thumbsPage)) {
		t.Errorf("the job's prompt %q does not quote the page %s", prompts, s.thumbsPage)
	}
	// The watcher exports it, active.
	eventually(t, 30*time.Second, "the created job in Prometheus", func() string {
		return s.expectData(fmt.Sprintf(`mintlify_agent_job_status{job_id=%q,status="active"} == 1`, jobID), time.Time{})
	})
	// Alertmanager repeats every 5 s: the webhook answers "active".
	eventually(t, 40*time.Second, "Alertmanager's repeats reaching the webhook", func() string {
		return s.expectData(`mintlify_remediation_alerts_total{rule="thumbs-down",outcome="active"} >= 2`, time.Time{})
	})
	// The fake completes it: its pull request is exported; the alert still
	// fires, and the key is in its cooldown.
	s.srv.SetJobStatus(projectDocs, jobID, "completed")
	eventually(t, 30*time.Second, "the created job's pull request in Prometheus", func() string {
		return s.expectData(fmt.Sprintf(`mintlify_agent_job_info{job_id=%q,has_pr="true"}`, jobID), time.Time{})
	})
	eventually(t, 40*time.Second, "the webhook in the key's cooldown", func() string {
		return s.expectData(`mintlify_remediation_alerts_total{rule="thumbs-down",outcome="cooldown"} >= 1`, time.Time{})
	})
	if n := s.srv.CountRequests("create_job"); n != 1 {
		t.Errorf("%d create_job requests, want exactly 1", n)
	}
	if out := s.expectData(`mintlify_remediation_jobs_created_total{project="`+projectDocs+`",rule="thumbs-down"} == 1`, time.Time{}); out != "" {
		t.Errorf("jobs created: %s", out)
	}
}

// ledgerJob returns the job the ledger holds for key.
func (s *stack) ledgerJob(key string) (string, error) {
	b, err := os.ReadFile(s.ledger)
	if err != nil {
		return "", err
	}
	var f struct {
		Entries []struct {
			Key   string `json:"key"`
			JobID string `json:"jobId"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return "", err
	}
	for _, e := range f.Entries {
		if e.Key == key && e.JobID != "" {
			return e.JobID, nil
		}
	}
	return "", fmt.Errorf("no job for key %s in the ledger: %s", key, b)
}

// thumbsDownPayload is what Alertmanager posts for one firing
// MintlifyPageThumbsDownRising of page path.
func thumbsDownPayload(path string) string {
	return `{"version":"4","groupKey":"{}:{alertname=\"MintlifyPageThumbsDownRising\"}","status":"firing","receiver":"mintlify-remediation",` +
		`"groupLabels":{},"commonLabels":{},"commonAnnotations":{},"externalURL":"http://alertmanager","truncatedAlerts":0,` +
		`"alerts":[{"status":"firing","labels":{"alertname":"MintlifyPageThumbsDownRising","project":"docs","path":"` + path + `","window":"7d","severity":"warning","team":"docs"},` +
		`"annotations":{"description":"Page ` + path + ` got 12 thumbs down"},"startsAt":"2026-03-01T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","generatorURL":"http://prometheus","fingerprint":"0123456789abcdef"}]}`
}

// postWebhook posts body to the exporter's webhook with the Authorization
// header auth ("" for none) and returns the status and the answer.
func postWebhook(t *testing.T, p *process, auth, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/webhook/alertmanager", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRemediationWebhookAcrossRestarts runs the binary with an acting
// remediation configuration: unauthenticated and malformed requests change
// nothing, an alert creates one job, and after a restart the same alert
// creates no second one.
func TestRemediationWebhookAcrossRestarts(t *testing.T) {
	t.Parallel()
	fake := apitest.Fake(t, mintlifytest.WithProject("docs", mintlifytest.NewDataset()))
	dir := t.TempDir()
	args := append([]string{"--mintlify.api-url=" + fake.URL(), "--mintlify.project-id=docs", "--analytics.window=1d",
		"--remediation.config=" + writeFile(t, dir, "rules.yml", remediationRules(t)),
		"--remediation.token-file=" + writeFile(t, dir, "token", []byte(remediationToken+"\n")),
		"--cache.file=" + filepath.Join(dir, "state.json")}, visitorsOnly...)
	env := []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey}
	bearer := "Bearer " + remediationToken

	p := startExporter(t, env, args...)
	for _, c := range []struct {
		name, auth, body string
		want             int
	}{
		{"no token", "", thumbsDownPayload("/a"), http.StatusUnauthorized},
		{"wrong token", "Bearer wrong-token-0123456789", thumbsDownPayload("/a"), http.StatusUnauthorized},
		{"malformed", bearer, `{"version":"4","alerts":[{"status":"firing","labels":`, http.StatusBadRequest},
		{"version 3", bearer, strings.Replace(thumbsDownPayload("/a"), `"version":"4"`, `"version":"3"`, 1), http.StatusBadRequest},
	} {
		if code, body := postWebhook(t, p, c.auth, c.body); code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, code, body, c.want)
		}
	}
	if n := fake.CountRequests("create_job"); n != 0 {
		t.Fatalf("%d create_job requests after refused posts", n)
	}
	code, body := postWebhook(t, p, bearer, thumbsDownPayload("/quickstart"))
	if code != http.StatusOK || !strings.Contains(body, `"outcome":"created"`) {
		t.Fatalf("first alert: %d %s", code, body)
	}
	if code, body = postWebhook(t, p, bearer, thumbsDownPayload("/quickstart")); !strings.Contains(body, `"outcome":"active"`) {
		t.Errorf("Alertmanager's repeat: %d %s, want active", code, body)
	}
	if !strings.Contains(p.log.String(), "msg=\"agent job created for an alert\"") {
		t.Errorf("no log line for the job created:\n%s", p.log.String())
	}
	p.stop(t)

	p = startExporter(t, env, args...)
	if code, body = postWebhook(t, p, bearer, thumbsDownPayload("/quickstart")); !strings.Contains(body, `"outcome":"active"`) {
		t.Errorf("after a restart: %d %s, want active", code, body)
	}
	if n := fake.CountRequests("create_job"); n != 1 {
		t.Errorf("%d create_job requests, want 1", n)
	}
	_, raw := getURL(t, httpClient, "http://"+p.addr+"/", nil)
	page := string(raw)
	if !strings.Contains(page, "<h2>Remediation</h2>") || !strings.Contains(page, "docs/quickstart") {
		t.Errorf("the landing page does not list the key:\n%s", page)
	}
}
