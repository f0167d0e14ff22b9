// Package logging builds the exporter's loggers from --log.level and
// --log.format. The go-kit logger and the *slog.Logger given to libraries
// write through one slog handler, so every line has one format:
//
//	time=2026-08-01T12:00:00.000Z level=info source=main.go:120 msg="Listening on" address=[::]:9863
//
// Levels stay lower case as go-kit wrote them (promslog writes level=INFO),
// so queries matching level=info keep matching.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// Levels and Formats are the accepted flag values.
var (
	Levels  = []string{"debug", "info", "warn", "error"}
	Formats = []string{"logfmt", "json"}
)

// TimeLayout is the layout of the time key (UTC, milliseconds).
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// New returns a logger writing to w in format, keeping entries at lvl and
// above, and the same logger as a *slog.Logger.
func New(w io.Writer, lvl, format string) (log.Logger, *slog.Logger, error) {
	sl, ok := slogLevels[lvl]
	if !ok {
		return nil, nil, fmt.Errorf("invalid log level %q: want debug, info, warn or error", lvl)
	}
	opts := &slog.HandlerOptions{Level: sl, AddSource: true, ReplaceAttr: replaceAttr}
	var h slog.Handler
	switch format {
	case "logfmt":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, nil, fmt.Errorf("invalid log format %q: want logfmt or json", format)
	}
	return &goKit{h: h}, slog.New(h), nil
}

// replaceAttr formats the built-in keys; an entry's own key that collides
// with one becomes logged_<key> (as in promslog), so JSON never repeats one.
func replaceAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.SourceKey {
		var key, s string // the built-in key whose value a holds
		switch v := a.Value.Any().(type) {
		case time.Time:
			key, s = slog.TimeKey, v.UTC().Format(TimeLayout)
		case slog.Level:
			key, s = slog.LevelKey, strings.ToLower(v.String())
		case *slog.Source:
			key, s = slog.SourceKey, filepath.Base(v.File)+":"+strconv.Itoa(v.Line)
		}
		if key != a.Key {
			a.Key = "logged_" + a.Key
		} else {
			a.Value = slog.StringValue(s)
		}
	}
	if d, ok := a.Value.Any().(time.Duration); ok {
		a.Value = slog.StringValue(d.String())
	}
	return a
}

// goKit is a go-kit logger writing through a slog handler; the "level" and
// "msg" keys become the record's level and message.
type goKit struct{ h slog.Handler }

// Log implements log.Logger.
func (g *goKit) Log(keyvals ...any) error {
	lvl := slog.LevelInfo
	msg := ""
	attrs := make([]slog.Attr, 0, len(keyvals)/2)
	for kv := range slices.Chunk(keyvals, 2) {
		k, v := kv[0], any("(MISSING)")
		if len(kv) == 2 {
			v = kv[1]
		}
		if lv, ok := v.(level.Value); ok && k == level.Key() {
			lvl = slogLevels[lv.String()] // info when unknown: the zero Level
			continue
		}
		key := fmt.Sprint(k)
		if key == "msg" && msg == "" {
			msg = fmt.Sprint(v)
			continue
		}
		attrs = append(attrs, attr(key, v))
	}
	ctx := context.Background()
	if !g.h.Enabled(ctx, lvl) {
		return nil
	}
	r := slog.NewRecord(time.Now(), lvl, msg, callerPC())
	r.AddAttrs(attrs...)
	return g.h.Handle(ctx, r)
}

// attr converts one go-kit value: errors and Stringers as their text, as
// go-kit's own formatters print them, a nil error as "null".
func attr(key string, v any) slog.Attr {
	switch x := v.(type) {
	case nil:
		return slog.String(key, "null")
	case error:
		return slog.String(key, safeString(x.Error))
	case fmt.Stringer:
		return slog.String(key, safeString(x.String))
	}
	return slog.Any(key, v)
}

// safeString calls f, turning a panic (a nil pointer behind an interface)
// into a placeholder, as go-kit's formatters do.
func safeString(f func() string) (s string) {
	defer func() {
		if recover() != nil {
			s = "NULL"
		}
	}()
	return f()
}

var slogLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// callerPC returns the first caller outside go-kit's log packages and this
// one: the call site, however many wrappers lie in between.
func callerPC() uintptr {
	const thisLog = "github.com/mintlify-exporter/mintlify_exporter/logging.(*goKit).Log"
	var pcs [16]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/go-kit/log") && f.Function != thisLog {
			return f.PC
		}
		if !more {
			return 0
		}
	}
}
