package cli

import (
	"context"
	"io"
	"log/slog"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

// serve runs the exporter until ctx ends and returns the exit code.
// Everything is validated, and the sockets opened, before the first info
// line, so an error until then prints as one flag-style line, not a log line.
func serve(ctx context.Context, f *flags, logger log.Logger, slogger *slog.Logger, stderr io.Writer) int {
	cfg, conn, err := serveConfig(f, logger)
	if err != nil {
		return fail(stderr, err)
	}
	defer conn.close()
	ls, err := exporter.Listen(f.web.toolkit)
	if err != nil {
		return fail(stderr, err)
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
		return fail(stderr, err)
	}
	defer x.Close()
	if err := x.Serve(ctx, ls, slogger); err != nil {
		level.Error(logger).Log("msg", "exiting", "err", err)
		return 1
	}
	return 0
}
