// Package logging builds the exporter's go-kit logger from the
// --log.level and --log.format flags, as Prometheus components do, and
// bridges it to *slog.Logger for libraries that take one (exporter-toolkit).
package logging

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	sloggokit "github.com/tjhop/slog-gokit"
)

// Levels and Formats are the accepted flag values.
var (
	Levels  = []string{"debug", "info", "warn", "error"}
	Formats = []string{"logfmt", "json"}
)

// New returns a logger writing to w in the given format ("logfmt" or
// "json"), keeping entries at lvl ("debug", "info", "warn", "error") and
// above, each with a UTC timestamp and the caller; and the same logger as a
// *slog.Logger for libraries that take one (slog adds its own time and
// source).
func New(w io.Writer, lvl, format string) (log.Logger, *slog.Logger, error) {
	var l log.Logger
	switch format {
	case "logfmt":
		l = log.NewLogfmtLogger(log.NewSyncWriter(w))
	case "json":
		l = log.NewJSONLogger(log.NewSyncWriter(w))
	default:
		return nil, nil, fmt.Errorf("invalid log format %q: want logfmt or json", format)
	}
	var allow level.Option
	switch lvl {
	case "debug":
		allow = level.AllowDebug()
	case "info":
		allow = level.AllowInfo()
	case "warn":
		allow = level.AllowWarn()
	case "error":
		allow = level.AllowError()
	default:
		return nil, nil, fmt.Errorf("invalid log level %q: want debug, info, warn or error", lvl)
	}
	l = level.NewFilter(l, allow)
	sl := slog.New(sloggokit.NewGoKitHandler(l, slog.LevelDebug))
	return log.With(l, "ts", log.DefaultTimestampUTC, "caller", log.DefaultCaller), sl, nil
}
