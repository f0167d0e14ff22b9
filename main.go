// Command mintlify_exporter is a Prometheus exporter for Mintlify's REST
// API: documentation analytics (visitors, views, assistant queries,
// feedback, searches, assistant conversations) per site and per page, and
// the status of agent jobs; with --remediation.config it is also an
// Alertmanager receiver that turns chosen alerts into agent jobs. Its
// "agent" subcommands create a job, send it a follow-up message and read
// it; "backfill" writes past days for promtool.
//
// This file reads top to bottom as the program: parse the flags (each
// group in its flags_*.go registers and checks its own), then run the
// command. config.go assembles the exporter's configuration from the
// groups.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
	"github.com/mintlify-exporter/mintlify_exporter/logging"
)

const (
	exporterName = progname.Name
	errorPrefix  = progname.ErrorPrefix
	// shutdownGrace bounds how long in-flight scrapes may take on SIGTERM.
	shutdownGrace = 4 * time.Second
)

func main() {
	fillVersion()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit code. SIGINT and SIGTERM
// stop it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr)
}

// runContext is run until ctx ends.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	versionText := version.Print(exporterName)
	if slices.Contains(args, "--help-man") { // the man page's header (.TH): one line, quoted
		versionText = strconv.Quote(version.Version)
	}
	app, cmds := newAppVersion(&f, versionText)
	helpOrVersion := false // kingpin calls Terminate after printing --help or --version
	app.Terminate(func(int) { helpOrVersion = true })
	app.ErrorWriter(stderr)
	app.UsageWriter(stdout)
	cmd, err := app.Parse(args)
	if helpOrVersion { // printed; a missing required flag after --help is no error
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s%s; try --help\n", errorPrefix, agentcmd.ErrorLine(explainParseError(app, args, err)))
		return 1
	}
	if cmd == "" {
		return 0
	}
	if err := unusedFlag(app, args, cmd); err != nil {
		fmt.Fprintln(stderr, errorPrefix+err.Error())
		return 1
	}
	logger, slogger, err := logging.New(stderr, f.log.level, f.log.format)
	if err != nil {
		fmt.Fprintf(stderr, "%s%v\n", errorPrefix, err)
		return 1
	}
	switch {
	case cmds.backfill.Selected(cmd):
		return cmds.backfill.run(ctx, &f, logger, stdout, stderr)
	case cmds.agent.Selected(cmd):
		return runAgent(ctx, cmd, cmds.agent, &f, logger, stdin, stdout, stderr)
	}
	if err := serve(ctx, &f, logger, slogger); err != nil {
		var se startupError
		if errors.As(err, &se) {
			// A mistake in the configuration reads like a flag error.
			fmt.Fprintln(stderr, errorPrefix+agentcmd.ErrorLine(se.Error()))
			return 1
		}
		level.Error(logger).Log("msg", "exiting", "err", err)
		return 1
	}
	return 0
}

// runAgent runs an agent subcommand, against a demo's fake API of its own
// with --demo.
func runAgent(ctx context.Context, cmd string, agent *agentcmd.Command, f *flags, logger log.Logger, stdin io.Reader, stdout, stderr io.Writer) int {
	conn, err := f.api.connect(f.demo, forAgent, logger)
	if err != nil {
		fmt.Fprintln(stderr, errorPrefix+agentcmd.ErrorLine(err.Error()))
		return 1
	}
	defer conn.close()
	if conn.demo != nil {
		level.Warn(logger).Log("msg", "DEMO MODE: a synthetic API started for this command; the jobs and their answers are made up")
	}
	c, err := conn.client(f.api.timeout, nil)
	if err != nil {
		fmt.Fprintln(stderr, errorPrefix+agentcmd.ErrorLine(err.Error()))
		return 1
	}
	return agent.Run(ctx, cmd, agentcmd.Env{
		Client: c, ProjectIDs: conn.projects, Stdin: stdin, Stdout: stdout, Stderr: stderr,
		StderrIsTerminal: isTerminal(stderr),
	})
}

// isTerminal reports whether w is a terminal (progress is then one line
// updated in place).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// startupError is an error found before the exporter serves (a flag, a
// file, the API's answer to the first check, a socket): run prints it in
// the style of a flag error, not as a log line.
type startupError struct{ err error }

func (e startupError) Error() string { return e.err.Error() }
func (e startupError) Unwrap() error { return e.err }

// serve runs the exporter until ctx ends. Everything is validated, and the
// listening sockets opened, before the first info line.
func serve(ctx context.Context, f *flags, logger log.Logger, slogger *slog.Logger) error {
	cfg, conn, err := serveConfig(f, logger)
	if err != nil {
		return startupError{err}
	}
	defer conn.close()
	ls, err := f.web.listen()
	if err != nil {
		return startupError{err}
	}
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()

	level.Info(logger).Log("msg", "starting "+exporterName, "version", version.Info())
	level.Info(logger).Log("msg", "build context", "build_context", version.BuildContext())
	if conn.demo != nil {
		level.Warn(logger).Log("msg", conn.demo.Banner())
	}
	x, err := exporter.New(cfg)
	if err != nil {
		return startupError{err}
	}
	defer x.Close()

	srv := exporter.NewServer(x.Handler(), slog.NewLogLogger(slogger.Handler(), slog.LevelError))
	errc := make(chan error, 1)
	go func() {
		var err error
		if ls == nil { // systemd socket activation or vsock: the toolkit listens
			err = web.ListenAndServe(srv, f.web.toolkit, slogger)
		} else {
			err = web.ServeMultiple(ls, srv, f.web.toolkit, slogger)
		}
		errc <- err
	}()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	level.Info(logger).Log("msg", "shutting down: finishing in-flight scrapes, cancelling refreshes")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	x.Close()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-errc // the server's goroutine has logged its last line
	level.Info(logger).Log("msg", "stopped")
	return nil
}
