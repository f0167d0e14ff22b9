// Package cli is mintlify_exporter's command line: the flag groups
// (flags_*.go), help, parse errors and file checks, and the commands serve
// (the exporter), backfill and agent. Only the root main imports it.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
	"github.com/mintlify-exporter/mintlify_exporter/logging"
)

const (
	exporterName = progname.Name
	errorPrefix  = progname.ErrorPrefix
)

// Main runs the command line of the process, stopped by SIGINT and
// SIGTERM, and returns its exit code.
func Main() int {
	fillVersionFrom(debug.ReadBuildInfo())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// runContext is the whole program until ctx ends; it returns the exit code.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	versionText := version.Print(exporterName)
	if slices.Contains(args, "--help-man") { // the man page's header (.TH): one line, quoted
		versionText = strconv.Quote(version.Version)
	}
	app := newAppVersion(&f, versionText)
	helpOrVersion := false // kingpin calls Terminate after printing --help or --version
	app.Terminate(func(int) { helpOrVersion = true })
	app.ErrorWriter(stderr)
	app.UsageWriter(stdout)
	cmd, err := app.Parse(args)
	if helpOrVersion { // printed; a missing required flag after --help is no error
		return 0
	}
	if err != nil {
		return fail(stderr, fmt.Errorf("%s; try --help", explainParseError(app, args, err)))
	}
	if err := unusedFlag(app, args, cmd); err != nil {
		return fail(stderr, err)
	}
	logger, slogger, err := logging.New(stderr, f.logLevel, f.logFormat)
	if err != nil {
		return fail(stderr, err)
	}
	switch {
	case cmd == cmdBackfill:
		return f.backfill.run(ctx, &f, logger, stdout, stderr)
	case f.agent.Selected(cmd):
		return runAgent(ctx, cmd, &f, logger, stdin, stdout, stderr)
	}
	return serve(ctx, &f, logger, slogger, stderr)
}

// fail prints err as one error line, as kingpin's, and returns exit code 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, errorPrefix+agentcmd.ErrorLine(err.Error()))
	return 1
}

// runAgent runs an agent subcommand; with --demo, against a fake API of its own.
func runAgent(ctx context.Context, cmd string, f *flags, logger log.Logger, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := f.api.check(f.demo, logger); err != nil {
		return fail(stderr, err)
	}
	conn, err := f.api.connect(f.demo, forAgent, logger)
	if err != nil {
		return fail(stderr, err)
	}
	defer conn.close()
	if conn.demo != nil {
		level.Warn(logger).Log("msg", "DEMO MODE: a synthetic API started for this command; the jobs and their answers are made up")
	}
	c, err := conn.client(f.api.timeout, client.Hooks{})
	if err != nil {
		return fail(stderr, err)
	}
	return f.agent.Run(ctx, cmd, agentcmd.Env{
		Client: c, ProjectIDs: conn.projects, Stdin: stdin, Stdout: stdout, Stderr: stderr,
		StderrIsTerminal: isTerminal(stderr), Now: time.Now, Sleep: client.DefaultSleep,
	})
}

// isTerminal reports whether w is a terminal (progress then redraws one line).
func isTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok {
		st, err := f.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return false
}
