package agentcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
)

// maxStdinPrompt refuses a runaway pipe rather than read it into memory.
const maxStdinPrompt = 1 << 20

// run is one execution of an agent command.
type run struct {
	*Command
	ctx     context.Context
	env     Env
	project string
	start   time.Time // when the prompt was sent
	// What the run has shown of the job's status on standard error: on a
	// terminal one line rewritten in place, otherwise a line per change and
	// one every progressEvery, so a log shows the wait goes on.
	status  client.JobStatus
	printed time.Time // when the last line was printed, off a terminal
	drawn   bool      // the terminal line holds a status line
	pr      string    // the pull request link printed, "" before
}

// send sends a follow-up message, or with create starts a job; --wait follows it.
func (r *run) send(create bool) int {
	prompt, err := r.readPrompt()
	if err != nil {
		return r.fail(err.Error())
	}
	r.start = r.env.Now()
	e := client.EndpointSendMessage
	var job *client.Job
	if create {
		e = client.EndpointCreateJob
		job, err = r.env.Client.CreateJob(r.ctx, r.project, prompt)
	} else {
		job, err = r.env.Client.SendMessage(r.ctx, r.project, r.job, prompt)
	}
	if err != nil {
		return r.apiError(err, e)
	}
	if !r.wait {
		return r.print(job, ExitOK)
	}
	if create {
		r.job = job.ID
	}
	return r.print(r.follow(job))
}

// readPrompt returns the prompt, standard input's for - (less the trailing
// newline an editor adds), or the problem to report before sending.
func (r *run) readPrompt() (string, error) {
	if r.wait && r.timeout <= 0 {
		return "", fmt.Errorf("--wait.timeout must be positive (got %s)", r.timeout)
	}
	prompt := r.prompt
	if prompt == "-" {
		data, err := io.ReadAll(io.LimitReader(r.env.Stdin, maxStdinPrompt+1))
		if err != nil {
			return "", fmt.Errorf("--prompt=-: reading standard input: %w", err)
		}
		if len(data) > maxStdinPrompt {
			return "", fmt.Errorf("--prompt=-: the prompt on standard input is larger than %d bytes", maxStdinPrompt)
		}
		prompt = string(data)
		if t, ok := strings.CutSuffix(prompt, "\n"); ok {
			prompt = strings.TrimSuffix(t, "\r")
		}
	}
	switch {
	case prompt == "":
		return "", errors.New("the prompt is empty; nothing was sent")
	case !utf8.ValidString(prompt):
		return "", errors.New("the prompt is not valid UTF-8; nothing was sent")
	}
	return prompt, nil
}

func (r *run) fail(msg string) int {
	fmt.Fprintln(r.env.Stderr, progname.ErrorPrefix+ErrorLine(msg))
	return ExitError
}

// apiError reports a failed request in one line and returns the exit code.
func (r *run) apiError(err error, e client.Endpoint) int {
	if r.ctx.Err() != nil {
		r.fail("interrupted")
		return ExitInterrupted
	}
	return r.fail(r.describe(err, e))
}

// describe turns an API error into one clear line.
func (r *run) describe(err error, e client.Endpoint) string {
	switch {
	case client.IsNotFound(err) && e == client.EndpointCreateJob:
		return fmt.Sprintf("project %s not found (check --mintlify.project-id)", r.project)
	case client.IsNotFound(err):
		return fmt.Sprintf("job %s not found in project %s", r.job, r.project)
	case client.IsUnauthorized(err):
		ae, _ := errors.AsType[*client.APIError](err) // its Message is never empty
		return "the admin API key was refused: HTTP 401: " + ae.Message + " (check --mintlify.api-key-file or MINTLIFY_API_KEY; keys can expire)"
	}
	if retryAfter, has, ok := client.IsRateLimited(err); ok {
		when := "later"
		if has {
			when = "after " + retryAfter.Round(time.Second).String()
		}
		if e == client.EndpointSendMessage || e == client.EndpointCreateJob {
			return fmt.Sprintf("rate limited: %d new jobs and messages per project per hour; retry %s", client.AgentUsesPerHour, when)
		}
		return "rate limited by the API; retry " + when
	}
	return err.Error()
}

// print writes the job as the API sent it, indented, and returns code.
func (r *run) print(job *client.Job, code int) int {
	var buf bytes.Buffer
	err := json.Indent(&buf, job.Raw, "", "  ")
	if err == nil {
		buf.WriteByte('\n')
		_, err = r.env.Stdout.Write(terminalSafeJSON(buf.Bytes()))
	}
	if err != nil {
		return r.fail(fmt.Sprintf("cannot print the job: %v", err))
	}
	return code
}

// terminalSafeJSON escapes as \u what JSON strings may carry raw but a
// terminal acts on (DEL, C1 controls, line and paragraph separators, bidi
// overrides); below DEL, JSON holds no raw control but its newlines.
func terminalSafeJSON(b []byte) []byte {
	return []byte(escape(string(b), func(r rune) bool { return r >= 0x7f && unprintable(r) || r == 0x2028 || r == 0x2029 },
		func(r rune) string { return fmt.Sprintf("\\u%04x", r) }))
}
