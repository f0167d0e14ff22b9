package agentcmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// t0 is the start of the test clock: 2025-03-01T12:00:00Z.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// harness is a fake API and what a command runs with.
type harness struct {
	t        *testing.T
	rig      *apitest.Rig
	clock    *mintlifytest.Clock
	fake     *mintlifytest.Server
	key      string
	projects []string
	stdin    string
	tty      bool
	// onSleep, when set, runs after each injected sleep with its index
	// (from 0); a non-nil error is returned by the sleep.
	onSleep func(i int) error
	ctx     context.Context

	sleeps         []time.Duration
	stdout, stderr bytes.Buffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	r := apitest.NewRig(t, t0)
	return &harness{t: t, rig: r, clock: r.Clock, fake: r.Fake, key: mintlifytest.DefaultKey, projects: []string{"p1"}, ctx: context.Background()}
}

// run parses args with a kingpin application as the binary does and runs
// the selected agent command; it returns the exit code.
func (h *harness) run(args ...string) int {
	h.t.Helper()
	h.sleeps = nil
	h.stdout.Reset()
	h.stderr.Reset()
	app := kingpin.New("mintlify_exporter", "test")
	cmd := agentcmd.Register(app)
	selected, err := app.Parse(args)
	if err != nil {
		h.t.Fatalf("parse %q: %v", args, err)
	}
	if !cmd.Selected(selected) {
		h.t.Fatalf("parse %q: selected %q is not an agent command", args, selected)
	}
	key, err := client.StaticKey(h.key)
	if err != nil {
		h.t.Fatal(err)
	}
	c := h.rig.Client(client.Config{Key: key, Retry: client.RetryPolicy{MaxAttempts: 1}})
	code := cmd.Run(h.ctx, selected, agentcmd.Env{
		Client:           c,
		ProjectIDs:       h.projects,
		Stdin:            strings.NewReader(h.stdin),
		Stdout:           &h.stdout,
		Stderr:           &h.stderr,
		StderrIsTerminal: h.tty,
		Now:              h.clock.Now,
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			h.sleeps = append(h.sleeps, d)
			h.clock.Advance(d)
			if h.onSleep != nil {
				return h.onSleep(len(h.sleeps) - 1)
			}
			return nil
		},
	})
	for _, out := range []string{h.stdout.String(), h.stderr.String()} {
		if strings.Contains(out, h.key) || strings.Contains(out, mintlifytest.DefaultKey) {
			h.t.Errorf("the API key was printed:\n%s", out)
		}
	}
	return code
}

// expect checks the exit code and both outputs literally.
func (h *harness) expect(code, wantCode int, wantStdout, wantStderr string) {
	h.t.Helper()
	if code != wantCode {
		h.t.Errorf("exit code %d, want %d; stderr:\n%s", code, wantCode, h.stderr.String())
	}
	if got := h.stdout.String(); got != wantStdout {
		h.t.Errorf("stdout:\n%q\nwant:\n%q", got, wantStdout)
	}
	if got := h.stderr.String(); got != wantStderr {
		h.t.Errorf("stderr:\n%q\nwant:\n%q", got, wantStderr)
	}
}

// jobJSON is the job j1 as the commands print it.
func jobJSON(status, ref, prLink string) string {
	if ref != "null" {
		ref = `"` + ref + `"`
	}
	if prLink != "null" {
		prLink = `"` + prLink + `"`
	}
	return `{
  "id": "j1",
  "status": "` + status + `",
  "source": {
    "repository": "https://github.com/acme/docs",
    "ref": ` + ref + `
  },
  "model": "claude-sonnet-4",
  "prLink": ` + prLink + `,
  "createdAt": "2025-03-01T11:00:00.000Z",
  "archivedAt": null
}
`
}

// addJob adds j1, created an hour before t0.
func (h *harness) addJob(spec mintlifytest.JobSpec) {
	spec.ID = "j1"
	spec.CreatedAt = t0.Add(-time.Hour)
	h.fake.AddJob("p1", spec)
}
