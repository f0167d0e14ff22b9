package agentcmd_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestWaitTimeoutBoundsEveryRead: a read of the job that hangs while
// waiting is cut off when --wait.timeout passes (exit 3), not after the
// client's own timeout and retries.
func TestWaitTimeoutBoundsEveryRead(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{RunFor: time.Hour})
	// The read hangs for 10 minutes; the harness gives up (exit 130)
	// after 30 s, which a read bounded by --wait.timeout never reaches.
	h.fake.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Delay: 10 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.ctx = ctx
	code := h.run("agent", "message", "--job=j1", "--prompt=go", "--wait", "--wait.timeout=3s")
	if code != agentcmd.ExitTimeout || !strings.Contains(h.stderr.String(), "gave up waiting after 3s") {
		t.Errorf("exit %d, want %d (--wait.timeout); stderr:\n%s", code, agentcmd.ExitTimeout, h.stderr.String())
	}
}

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

func TestErrorLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           "plain",
		"a\nb":            `a\nb`,
		"\x1b[31mred":     `\x1b[31mred`,
		"bad \xff byte":   "bad \uFFFD byte",
		"rtl \u202e over": `rtl \u202e over`,
		"c1 \u009b":       `c1 \u009b`,
	} {
		if got := agentcmd.ErrorLine(in); got != want {
			t.Errorf("ErrorLine(%q) = %q, want %q", in, got, want)
		}
	}
}
