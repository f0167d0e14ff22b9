package agentcmd_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
)

func TestSelected(t *testing.T) {
	app := kingpin.New("mintlify_exporter", "")
	cmd := agentcmd.Register(app)
	for s, want := range map[string]bool{"agent message": true, "agent get": true, "agent create": true, "agent": false, "": false, "message": false} {
		if got := cmd.Selected(s); got != want {
			t.Errorf("Selected(%q) = %v, want %v", s, got, want)
		}
	}
	for _, args := range [][]string{{"agent", "get"}, {"agent", "message", "--job=j1"}} {
		if _, err := app.Parse(args); err == nil {
			t.Errorf("parse %q: no error for a missing required flag", args)
		}
	}
}

func TestGet(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{Ref: "main"})
	h.expect(h.run("agent", "get", "--job=j1"), 0, jobJSON("active", "main", "null"), "")

	h.expect(h.run("agent", "get", "--job=nope"), 1, "", progname.ErrorPrefix+"job nope not found in project p1\n")
}

func TestProjectCount(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	for _, projects := range [][]string{nil, {"p1", "p2"}} {
		h.projects = projects
		want := progname.ErrorPrefix + "agent commands need exactly one --mintlify.project-id (got " + map[int]string{0: "0", 2: "2"}[len(projects)] + ")\n"
		h.expect(h.run("agent", "get", "--job=j1"), 1, "", want)
		h.expect(h.run("agent", "message", "--job=j1", "--prompt=hi"), 1, "", want)
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestMessageWithoutWait(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{Status: "completed", Ref: "main"})
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=Fix the typo on /quickstart"), 0, jobJSON("active", "main", "null"), "")
	if got := h.fake.Messages("p1", "j1"); !slices.Equal(got, []string{"Fix the typo on /quickstart"}) {
		t.Errorf("messages %q", got)
	}
	if n := h.fake.CountRequests("get_job"); n != 0 {
		t.Errorf("%d get_job requests without --wait, want none", n)
	}
}

func TestPromptReachesAPIUnchanged(t *testing.T) {
	tenKB := strings.Repeat("Ünïcödé ✓ 文档\n", 10*1024/len("Ünïcödé ✓ 文档\n"))
	for _, tc := range []struct {
		name, flag, stdin, want string
	}{
		{"unicode", "Réécris la page « Démarrage » 🚀 文档", "", "Réécris la page « Démarrage » 🚀 文档"},
		{"newlines in flag kept", "line one\nline two\n\n", "", "line one\nline two\n\n"},
		{"quotes and backslashes", `say "hi" \ <b>&`, "", `say "hi" \ <b>&`},
		{"10 KB", tenKB, "", tenKB},
		{"stdin, one newline stripped", "-", "first\n\nsecond\n\n", "first\n\nsecond\n"},
		{"stdin, CRLF stripped", "-", "windows\r\n", "windows"},
		{"stdin without newline", "-", "as is", "as is"},
		{"stdin 10 KB", "-", tenKB, strings.TrimSuffix(tenKB, "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addJob(mintlifytest.JobSpec{})
			h.stdin = tc.stdin
			if code := h.run("agent", "message", "--job=j1", "--prompt="+tc.flag); code != 0 {
				t.Fatalf("exit %d: %s", code, h.stderr.String())
			}
			got := h.fake.Messages("p1", "j1")
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("the API received %q, want %q", got, tc.want)
			}
			reqs := h.fake.Requests()
			if len(reqs) != 1 || reqs[0].Endpoint != "send_message" {
				t.Fatalf("requests %+v", reqs)
			}
		})
	}
	if len(tenKB) < 10000 {
		t.Fatalf("the 10 KB prompt has %d bytes", len(tenKB))
	}
}

func TestEmptyPromptRefusedBeforeAnyRequest(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	h.expect(h.run("agent", "message", "--job=j1", "--prompt="), 1, "", progname.ErrorPrefix+"the prompt is empty; nothing was sent\n")
	h.stdin = "\n"
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=-", "--wait"), 1, "", progname.ErrorPrefix+"the prompt is empty; nothing was sent\n")
	h.stdin = ""
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=-"), 1, "", progname.ErrorPrefix+"the prompt is empty; nothing was sent\n")
	h.stdin = "bad \xff byte"
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=-"), 1, "", progname.ErrorPrefix+"the prompt is not valid UTF-8; nothing was sent\n")
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=x", "--wait", "--wait.timeout=0s"), 1, "", progname.ErrorPrefix+"--wait.timeout must be positive (got 0s)\n")
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestMessageErrors(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})

	h.expect(h.run("agent", "message", "--job=nope", "--prompt=hi", "--wait"), 1, "", progname.ErrorPrefix+"job nope not found in project p1\n")

	h.key = "mint_0000000000000000000000000000wrong"
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=hi"), 1, "",
		progname.ErrorPrefix+"the admin API key was refused: HTTP 401: Invalid API key (check --mintlify.api-key-file or MINTLIFY_API_KEY; keys can expire)\n")
	h.expect(h.run("agent", "get", "--job=j1"), 1, "",
		progname.ErrorPrefix+"the admin API key was refused: HTTP 401: Invalid API key (check --mintlify.api-key-file or MINTLIFY_API_KEY; keys can expire)\n")
	h.key = mintlifytest.DefaultKey

	remove := h.fake.AddFault(mintlifytest.Fault{Endpoint: "send_message", Status: 429, RetryAfter: "754"})
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=hi"), 1, "", progname.ErrorPrefix+"rate limited: 100 new jobs and messages per project per hour; retry after 12m34s\n")
	remove()
	remove = h.fake.AddFault(mintlifytest.Fault{Endpoint: "send_message", Status: 429})
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=hi"), 1, "", progname.ErrorPrefix+"rate limited: 100 new jobs and messages per project per hour; retry later\n")
	remove()
	if got := h.fake.Messages("p1", "j1"); len(got) != 0 {
		t.Errorf("messages delivered: %q", got)
	}

	// The fake's own limiter: 100 messages an hour, then 429.
	for i := range 100 {
		if code := h.run("agent", "message", "--job=j1", "--prompt=hi"); code != 0 {
			t.Fatalf("message %d: exit %d: %s", i+1, code, h.stderr.String())
		}
	}
	code := h.run("agent", "message", "--job=j1", "--prompt=hi")
	if code != 1 || !strings.HasPrefix(h.stderr.String(), progname.ErrorPrefix+"rate limited: 100 new jobs and messages per project per hour; retry after ") {
		t.Errorf("101st message: exit %d, stderr %q", code, h.stderr.String())
	}
}

func TestInterruptedBeforeSending(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.ctx = ctx
	h.expect(h.run("agent", "message", "--job=j1", "--prompt=hi", "--wait"), 130, "", progname.ErrorPrefix+"interrupted\n")
	if got := h.fake.Messages("p1", "j1"); len(got) != 0 {
		t.Errorf("messages delivered: %q", got)
	}
}

func TestOtherAPIErrorIsOneLine(t *testing.T) {
	h := newHarness(t)
	h.addJob(mintlifytest.JobSpec{})
	h.fake.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 500})
	h.expect(h.run("agent", "get", "--job=j1"), 1, "", progname.ErrorPrefix+"get_job: HTTP 500: Internal Server Error\n")
	h.expect(h.run("agent", "get", "--job= "), 1, "", progname.ErrorPrefix+"--job must not be empty\n")
}

func TestCreate(t *testing.T) {
	h := newHarness(t)
	h.fake.AddJob("p1", mintlifytest.JobSpec{ID: "existing"}) // makes the project known to the fake
	code := h.run("agent", "create", "--prompt=Document the new /v2 endpoints")
	h.expect(code, 0, `{
  "id": "job_00000001",
  "status": "active",
  "source": {
    "repository": "https://github.com/acme/docs",
    "ref": null
  },
  "model": "claude-sonnet-4",
  "prLink": null,
  "createdAt": "2025-03-01T12:00:00.000Z",
  "archivedAt": null
}
`, "")
	if got := h.fake.Messages("p1", "job_00000001"); !slices.Equal(got, []string{"Document the new /v2 endpoints"}) {
		t.Errorf("the new job's prompt: %q", got)
	}

	// --wait follows it to its pull request, as agent message --wait does.
	h.onSleep = func(i int) error {
		if i == 1 {
			h.fake.SetJobStatus("p1", "job_00000002", "completed")
		}
		return nil
	}
	h.stdin = "From standard input\n"
	code = h.run("agent", "create", "--prompt=-", "--wait")
	if code != 0 || !strings.Contains(h.stdout.String(), `"id": "job_00000002"`) || !strings.Contains(h.stdout.String(), `"status": "completed"`) {
		t.Errorf("exit %d, stdout:\n%s", code, h.stdout.String())
	}
	h.expect(code, 0, h.stdout.String(), "job job_00000002: active (0s)\njob job_00000002: completed (5s)\npull request: https://github.com/acme/docs/pull/1\n")
	if got := h.fake.Messages("p1", "job_00000002"); !slices.Equal(got, []string{"From standard input"}) {
		t.Errorf("the prompt read from standard input: %q", got)
	}

	// Refused before anything is sent.
	before := len(h.fake.Requests())
	h.stdin = ""
	h.expect(h.run("agent", "create", "--prompt=-"), 1, "", progname.ErrorPrefix+"the prompt is empty; nothing was sent\n")
	h.expect(h.run("agent", "create", "--prompt=x", "--wait", "--wait.timeout=0s"), 1, "", progname.ErrorPrefix+"--wait.timeout must be positive (got 0s)\n")
	if n := len(h.fake.Requests()) - before; n != 0 {
		t.Errorf("%d requests sent for refused commands", n)
	}
	h.projects = []string{"nope"}
	h.expect(h.run("agent", "create", "--prompt=x"), 1, "", progname.ErrorPrefix+"project nope not found (check --mintlify.project-id)\n")
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
