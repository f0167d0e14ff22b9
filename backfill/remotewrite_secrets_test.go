package backfill_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
)

// TestRemoteWriteRedirectRefused: a receiver that answers 307 (or 308)
// was followed silently and the original URL reported as where the
// samples went. Now the redirect is not followed: the run stops at once
// with one line naming --remote-write.url and the Location (its query
// values redacted), and nothing reaches the address redirected to.
func TestRemoteWriteRedirectRefused(t *testing.T) {
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		h := newHarness(t)
		recv := newReceiver(t)
		var asked atomic.Int32
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			http.Redirect(w, r, recv.url()+"?token=elsewhere-secret", code)
		}))
		t.Cleanup(redirector.Close)
		rw := newWriter(t, redirector.URL+"/api/v1/write", "")
		res, err := h.run(context.Background(), h.rwConfig(day(0), day(2), rw))
		if c := backfill.ExitCode(res, err); c != backfill.ExitError || err == nil {
			t.Fatalf("%d: exit %d, %v; want %d", code, c, err, backfill.ExitError)
		}
		for _, want := range []string{"--remote-write.url", "redirect to " + recv.url() + "?token=xxxxx", "not followed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d: error %q lacks %q", code, err, want)
			}
		}
		if strings.Contains(err.Error(), "elsewhere-secret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%d: error %q shows the Location's secret or is not one line", code, err)
		}
		if recv.requests() != 0 || asked.Load() != 1 {
			t.Errorf("%d: the redirect's target got %d requests, the redirector %d; want 0 and 1 (not followed, not retried)", code, recv.requests(), asked.Load())
		}
	}
}

// TestRemoteWriteURLSecretsRedacted: a token in --remote-write.url's query
// string was printed in every retry line and error (the HTTP client quotes
// the URL) and stored in a journal readable by every user. Now the query
// values are redacted everywhere, the journal is 0600, and a resume knows
// the receiver: the same URL resumes, one with another token is another
// receiver and is refused.
func TestRemoteWriteURLSecretsRedacted(t *testing.T) {
	const secret = "s3cr3t-v4lue"
	h := newHarness(t)
	down, err := backfill.NewRemoteWriter("http://127.0.0.1:1/api/v1/write?api_key="+secret, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(down.URL(), secret) {
		t.Fatalf("URL %q shows the secret", down.URL())
	}
	res, err := h.run(context.Background(), h.rwConfig(day(0), day(2), down))
	if backfill.ExitCode(res, err) == backfill.ExitOK || err == nil {
		t.Fatal("a run to an address nothing listens on succeeded")
	}
	for what, text := range map[string]string{"error": err.Error(), "output": h.out.String()} {
		if strings.Contains(text, secret) {
			t.Errorf("the %s shows the URL's secret:\n%s", what, text)
		}
	}
	if !strings.Contains(h.out.String(), "retry 1 of 2") {
		t.Errorf("no retry line: the test did not see the client's errors:\n%s", h.out.String())
	}
	journal := h.path("rw.journal")
	b, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), "api_key=xxxxx") {
		t.Errorf("the journal does not hold the redacted URL alone:\n%s", b)
	}
	if fi, err := os.Stat(journal); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the journal's mode: %v, %v; want 0600", fi.Mode().Perm(), err)
	}

	// The same URL resumes; another token is another receiver.
	resume := func(token string) error {
		rw, err := backfill.NewRemoteWriter("http://127.0.0.1:1/api/v1/write?api_key="+token, "", "")
		if err != nil {
			t.Fatal(err)
		}
		cfg := h.rwConfig(day(0), day(2), rw)
		cfg.Resume = true
		_, err = h.run(context.Background(), cfg)
		return err
	}
	if err := resume(secret); err == nil || strings.Contains(err.Error(), "other arguments") {
		t.Errorf("a resume with the same URL: %v; want it to resume (and fail to connect again)", err)
	}
	err = resume("another-token")
	if err == nil || !strings.Contains(err.Error(), "other arguments") {
		t.Errorf("a resume with another token in the URL: %v; want refused as made with other arguments", err)
	}
	if err != nil && (strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "another-token")) {
		t.Errorf("the refusal shows a secret: %v", err)
	}
}
