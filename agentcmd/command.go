package agentcmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Exit codes of the agent commands.
const (
	ExitOK          = 0   // done; with --wait, the job completed or was archived
	ExitError       = 1   // a usage or API error
	ExitJobFailed   = 2   // with --wait, the job failed
	ExitTimeout     = 3   // --wait.timeout passed first
	ExitInterrupted = 130 // the context was cancelled (Ctrl-C)
)

// ErrorLine makes msg one line safe for a terminal: control characters and
// bidirectional overrides (from a flag or the API) become Go escapes.
func ErrorLine(msg string) string {
	return escape(strings.ToValidUTF8(msg, "\uFFFD"), unprintable, func(r rune) string {
		q := strconv.QuoteRune(r)
		return q[1 : len(q)-1]
	})
}

// escape replaces in s each rune that is unsafe by esc(rune); other bytes,
// invalid UTF-8 included, are kept.
func escape(s string, unsafe func(rune) bool, esc func(rune) string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if unsafe(r) {
			b.WriteString(esc(r))
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// unprintable reports whether r must not reach a terminal: a control
// character or a bidirectional embedding, override or isolate.
func unprintable(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// DefaultWaitTimeout is the default of --wait.timeout.
const DefaultWaitTimeout = 30 * time.Minute

// Command holds the flags of the agent subcommands; they share the
// variables, as kingpin sets only those of the subcommand it selects.
type Command struct {
	job, prompt string
	wait        bool
	timeout     time.Duration
}

func (c *Command) promptFlags(cmd *kingpin.CmdClause, what string) {
	cmd.Flag("prompt", what+"; - reads it from standard input (one trailing newline removed).").Required().PlaceHolder("TEXT").StringVar(&c.prompt)
	cmd.Flag("wait", "Wait until the job is completed, archived or failed, showing progress on standard error, then print the final job.").BoolVar(&c.wait)
	cmd.Flag("wait.timeout", "Stop waiting after this long (exit code 3).").Default(DefaultWaitTimeout.String()).DurationVar(&c.timeout)
}

// Register adds the "agent" command and its subcommands to app.
func Register(app *kingpin.Application) *Command {
	c := &Command{}
	agent := app.Command("agent", "Work with Mintlify agent jobs (needs exactly one --mintlify.project-id).")
	msg := agent.Command("message", "Send a follow-up message to an agent job and print the job as JSON.")
	msg.Flag("job", "Id of the agent job.").Required().PlaceHolder("ID").StringVar(&c.job)
	c.promptFlags(msg, "The follow-up instruction")
	c.promptFlags(agent.Command("create", "Start an agent job with a prompt and print it as JSON (the operation the remediation webhook uses)."), "What the agent should do")
	agent.Command("get", "Print an agent job as JSON.").Flag("job", "Id of the agent job.").Required().PlaceHolder("ID").StringVar(&c.job)
	return c
}

// Selected reports whether cmd, as kingpin selected it, is an agent command.
func (c *Command) Selected(cmd string) bool { return strings.HasPrefix(cmd, "agent ") }

// Env is what the agent commands run with.
type Env struct {
	Client         *client.Client
	ProjectIDs     []string // --mintlify.project-id: exactly one
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StderrIsTerminal shows progress as one line rewritten in place.
	StderrIsTerminal bool
	// Now and Sleep (which ends early with ctx's error) are the clock:
	// time.Now and client.DefaultSleep outside tests.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Run runs the agent command cmd, one Selected accepts, and returns its exit code.
func (c *Command) Run(ctx context.Context, cmd string, env Env) int {
	r := &run{Command: c, ctx: ctx, env: env}
	if len(env.ProjectIDs) != 1 {
		return r.fail(fmt.Sprintf("agent commands need exactly one --mintlify.project-id (got %d)", len(env.ProjectIDs)))
	}
	r.project = env.ProjectIDs[0]
	create := cmd == "agent create"
	if r.job = strings.TrimSpace(r.job); !create && r.job == "" {
		return r.fail("--job must not be empty")
	}
	if cmd == "agent get" {
		job, err := env.Client.GetJob(ctx, r.project, r.job)
		if err != nil {
			return r.apiError(err, client.EndpointGetJob)
		}
		return r.print(job, ExitOK)
	}
	return r.send(create)
}
