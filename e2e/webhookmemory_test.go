package e2e

// The remediation webhook's memory is bounded whoever posts to it: a dry
// run needs no credentials, so 60 strangers posting 4 MiB payloads at once
// must not take the exporter past the deployment's memory limit.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

// webhookBomb is a valid Alertmanager payload just under the webhook's
// 4 MiB limit whose decoding costs the most memory for its size: tens of
// thousands of tiny alerts, each with a map of its own.
func webhookBomb() []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":"4","status":"firing","receiver":"x","alerts":[`)
	alert := `{"status":"firing","labels":{"a":"%d"}}`
	for i := 0; ; i++ {
		s := fmt.Sprintf(alert, i)
		if b.Len()+len(s)+4 > remediation.MaxPayloadBytes {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestWebhookMemoryUnderConcurrentPosts: 60 concurrent 4 MiB posts to a
// dry-run webhook (no credentials) keep the exporter's peak RSS under the
// deployment's limit, with GOMEMLIMIT=200MiB as deployed. Each post is
// answered (200, or 503 when it waited too long for its turn).
func TestWebhookMemoryUnderConcurrentPosts(t *testing.T) {
	if testing.Short() {
		t.Skip("posts 240 MiB to the webhook (-short)")
	}
	t.Parallel()
	fake := apitest.Fake(t, mintlifytest.WithProject("docs", mintlifytest.NewDataset()))
	dir := t.TempDir()
	rules := bytes.Replace(remediationRules(t), []byte("\ndry_run: false\n"), []byte("\ndry_run: true\n"), 1)
	args := append([]string{"--mintlify.api-url=" + fake.URL(), "--mintlify.project-id=docs", "--analytics.window=1d",
		"--remediation.config=" + writeFile(t, dir, "rules.yml", rules)}, visitorsOnly...)
	p := startExporter(t, append([]string{"GOMEMLIMIT=200MiB"}, keyEnv...), args...)
	before := p.peakRSS(t)

	body := webhookBomb()
	// The posts announce their body (Expect: 100-continue), so that one
	// refused before its body is read gets its 503 rather than a reset.
	poster := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: time.Minute}}
	const posts = 60
	codes := make(chan int, posts)
	var wg sync.WaitGroup
	for range posts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+remediation.Path, bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Expect", "100-continue")
			resp, err := poster.Do(req)
			if err != nil {
				t.Log(err)
				codes <- -1
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	counts := map[int]int{}
	for c := range codes {
		counts[c]++
	}
	peak := p.peakRSS(t)
	t.Logf("peak RSS: %.1f MiB before, %.1f MiB after %d concurrent posts of %.1f MiB; answers %v",
		float64(before)/(1<<20), float64(peak)/(1<<20), posts, float64(len(body))/(1<<20), counts)
	if peak >= deploymentMemoryLimit {
		t.Errorf("peak RSS %.1f MiB, over the deployment's limit of %d MiB", float64(peak)/(1<<20), deploymentMemoryLimit>>20)
	}
	if counts[http.StatusOK] == 0 || counts[-1] > 0 || counts[http.StatusOK]+counts[http.StatusServiceUnavailable] != posts {
		t.Errorf("answers %v, want 200s (and 503s for posts that waited too long), every post answered", counts)
	}
	if resp, _ := p.get(t, "/metrics", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("scrape after the posts: HTTP %d", resp.StatusCode)
	}
	p.stop(t)
}
