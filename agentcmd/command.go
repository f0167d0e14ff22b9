package agentcmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
)

// Exit codes of the agent commands.
const (
	// ExitOK means the job was printed; for message, that the message was
	// sent and, with --wait, that the job ended completed or archived.
	ExitOK = 0
	// ExitError means a usage error or an API error.
	ExitError = 1
	// ExitJobFailed means that, with --wait, the job ended failed.
	ExitJobFailed = 2
	// ExitTimeout means that, with --wait, --wait.timeout passed before the
	// job ended.
	ExitTimeout = 3
	// ExitInterrupted means the context was cancelled (Ctrl-C), for example
	// while waiting.
	ExitInterrupted = 130
)

// ErrorPrefix starts every error line of the agent commands, as it starts
// the exporter's own start-up errors.
const ErrorPrefix = progname.ErrorPrefix

// ErrorLine makes msg one line that is safe to print on a terminal:
// control characters (a newline in a flag value, a terminal escape sent by
// the API) and the bidirectional overrides that reorder text are written
// as Go escapes, and bytes that are not UTF-8 as U+FFFD.
func ErrorLine(msg string) string {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	if !strings.ContainsFunc(msg, unprintable) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if unprintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unprintable reports whether r must not reach a terminal as it is: a C0
// or C1 control character, DEL, or a bidirectional embedding, override or
// isolate (U+202A-U+202E, U+2066-U+2069).
func unprintable(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// The full names kingpin gives the commands once selected.
const (
	cmdMessage = "agent message"
	cmdGet     = "agent get"
	cmdCreate  = "agent create"
)

// DefaultWaitTimeout is the default of --wait.timeout.
const DefaultWaitTimeout = 30 * time.Minute

// Command holds the flags of the agent subcommands.
type Command struct {
	messageJob  *string
	prompt      *string
	wait        *bool
	waitTimeout *time.Duration
	getJob      *string
	// agent create
	createPrompt      *string
	createWait        *bool
	createWaitTimeout *time.Duration
}

// Register adds the "agent" command, with its "message" and "get"
// subcommands and their flags, to app.
func Register(app *kingpin.Application) *Command {
	c := &Command{}
	agent := app.Command("agent", "Work with Mintlify agent jobs (needs exactly one --mintlify.project-id).")

	msg := agent.Command("message", "Send a follow-up message to an agent job and print the job as JSON.")
	c.messageJob = msg.Flag("job", "Id of the agent job.").Required().PlaceHolder("ID").String()
	c.prompt = msg.Flag("prompt", "The follow-up instruction; - reads it from standard input (one trailing newline removed).").
		Required().PlaceHolder("TEXT").String()
	c.wait = msg.Flag("wait", "Wait until the job is completed, archived or failed, showing progress on standard error, then print the final job.").Bool()
	c.waitTimeout = msg.Flag("wait.timeout", "Stop waiting after this long (exit code 3).").
		Default(DefaultWaitTimeout.String()).Duration()

	create := agent.Command("create", "Start an agent job with a prompt and print it as JSON (the operation the remediation webhook uses).")
	c.createPrompt = create.Flag("prompt", "What the agent should do; - reads it from standard input (one trailing newline removed).").
		Required().PlaceHolder("TEXT").String()
	c.createWait = create.Flag("wait", "Wait until the job is completed, archived or failed, showing progress on standard error, then print the final job.").Bool()
	c.createWaitTimeout = create.Flag("wait.timeout", "Stop waiting after this long (exit code 3).").
		Default(DefaultWaitTimeout.String()).Duration()

	get := agent.Command("get", "Print an agent job as JSON.")
	c.getJob = get.Flag("job", "Id of the agent job.").Required().PlaceHolder("ID").String()
	return c
}

// Selected reports whether cmd, the command kingpin selected, is one of
// the agent commands.
func (c *Command) Selected(cmd string) bool {
	return cmd == cmdMessage || cmd == cmdGet || cmd == cmdCreate
}

// Env is what the agent commands run with.
type Env struct {
	// Client talks to the API.
	Client *client.Client
	// ProjectIDs are the configured --mintlify.project-id values; the
	// commands need exactly one.
	ProjectIDs []string
	// Stdin is read for --prompt=-.
	Stdin io.Reader
	// Stdout receives the job as JSON; Stderr progress and errors.
	Stdout, Stderr io.Writer
	// StderrIsTerminal selects progress as one updating line instead of one
	// line per status change.
	StderrIsTerminal bool
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Sleep waits d or until ctx is done, returning ctx's error then; a
	// timer when nil.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Run runs the selected agent command cmd and returns its exit code.
func (c *Command) Run(ctx context.Context, cmd string, env Env) int {
	env = env.withDefaults()
	if len(env.ProjectIDs) != 1 {
		fmt.Fprintf(env.Stderr, ErrorPrefix+"agent commands need exactly one --mintlify.project-id (got %d)\n", len(env.ProjectIDs))
		return ExitError
	}
	if env.Client == nil {
		fmt.Fprintln(env.Stderr, ErrorPrefix+"agent commands need an API client")
		return ExitError
	}
	r := &run{ctx: ctx, env: env, project: env.ProjectIDs[0]}
	switch cmd {
	case cmdMessage:
		return r.message(*c.messageJob, *c.prompt, *c.wait, *c.waitTimeout)
	case cmdGet:
		return r.get(*c.getJob)
	case cmdCreate:
		return r.create(*c.createPrompt, *c.createWait, *c.createWaitTimeout)
	}
	fmt.Fprintf(env.Stderr, ErrorPrefix+"not an agent command: %q\n", cmd)
	return ExitError
}

func (env Env) withDefaults() Env {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Sleep == nil {
		env.Sleep = client.DefaultSleep
	}
	return env
}
