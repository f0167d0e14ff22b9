package agentcmd_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestNoTerminalEscapesFromTheAPI: a status and a pull request link that
// carry terminal escapes or other control characters reach standard
// error escaped; the JSON on standard output stays JSON.
func TestNoTerminalEscapesFromTheAPI(t *testing.T) {
	for _, tty := range []bool{false, true} {
		h := newHarness(t)
		h.tty = tty
		h.addJob(mintlifytest.JobSpec{RunFor: 4 * time.Second})
		h.fake.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Mutate: func(b map[string]any) {
			b["status"] = "completed\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e"
			b["prLink"] = "https://evil.example/\x1b[8mhidden\r\nfake line"
		}})
		h.run("agent", "message", "--job=j1", "--prompt=go", "--wait", "--wait.timeout=1m")
		stderr := h.stderr.String()
		if tty {
			stderr = strings.ReplaceAll(stderr, "\r\x1b[K", "") // the exporter's own line rewriting
		}
		for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\rfake", "\nfake"} {
			if strings.Contains(stderr, bad) {
				t.Errorf("tty %v: standard error carries %q from the API:\n%q", tty, bad, stderr)
			}
		}
		if !strings.Contains(stderr, `\x1b[2J`) || !strings.Contains(stderr, `hidden\r\nfake line`) {
			t.Errorf("tty %v: the escapes are not shown escaped:\n%q", tty, stderr)
		}
		for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
			if strings.Contains(h.stdout.String(), bad) {
				t.Errorf("tty %v: %q raw on standard output:\n%q", tty, bad, h.stdout.String())
			}
		}
		var job struct{ Status string }
		if err := json.Unmarshal(h.stdout.Bytes(), &job); err != nil || job.Status != "completed\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e" {
			t.Errorf("tty %v: standard output is not the job as JSON: %v, status %q", tty, err, job.Status)
		}
	}
}
