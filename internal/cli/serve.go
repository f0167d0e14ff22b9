package cli

import (
	"context"
	"log/slog"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

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
	ls, err := exporter.Listen(f.web.toolkit)
	if err != nil {
		return startupError{err}
	}
	defer ls.Close()

	level.Info(logger).Log("msg", "starting "+exporterName, "version", version.Info())
	level.Info(logger).Log("msg", "build context", "build_context", version.BuildContext())
	if conn.demo != nil {
		level.Warn(logger).Log("msg", conn.demo.Banner())
		for _, c := range cfg.Examples {
			level.Info(logger).Log("msg", "demo: try the agent commands in another shell", "command", c)
		}
	}
	x, err := exporter.New(cfg)
	if err != nil {
		return startupError{err}
	}
	defer x.Close()
	return x.Serve(ctx, ls, slogger)
}
