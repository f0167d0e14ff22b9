package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/go-logfmt/logfmt"
)

func TestLevelsFilter(t *testing.T) {
	for _, c := range []struct {
		lvl  string
		want []string // messages kept, of debug, info, warn, error
	}{
		{"debug", []string{"d", "i", "w", "e"}},
		{"info", []string{"i", "w", "e"}},
		{"warn", []string{"w", "e"}},
		{"error", []string{"e"}},
	} {
		var buf bytes.Buffer
		l, sl, err := New(&buf, c.lvl, "logfmt")
		if err != nil {
			t.Fatal(err)
		}
		level.Debug(l).Log("msg", "d")
		level.Info(l).Log("msg", "i")
		level.Warn(l).Log("msg", "w")
		level.Error(l).Log("msg", "e")
		sl.Debug("slog-d")
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			for _, m := range []string{"d", "i", "w", "e"} {
				if strings.Contains(line, "msg="+m+" ") || strings.HasSuffix(line, "msg="+m) {
					got = append(got, m)
				}
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("level %s kept %v, want %v\n%s", c.lvl, got, c.want, buf.String())
		}
		if (c.lvl == "debug") != strings.Contains(buf.String(), "slog-d") {
			t.Errorf("level %s: the slog bridge does not follow the level filter:\n%s", c.lvl, buf.String())
		}
		if !strings.Contains(buf.String(), "source=logging_test.go:") {
			t.Errorf("source is not the logging call site:\n%s", buf.String())
		}
	}
}

func TestJSONFormat(t *testing.T) {
	var buf bytes.Buffer
	l, _, err := New(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	level.Info(l).Log("msg", "hello", "project", "docs")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, buf.String())
	}
	if m["msg"] != "hello" || m["level"] != "info" || m["time"] == nil || m["project"] != "docs" {
		t.Fatalf("entry %v", m)
	}
}

func TestInvalid(t *testing.T) {
	if _, _, err := New(&bytes.Buffer{}, "loud", "logfmt"); err == nil || !strings.Contains(err.Error(), "debug, info, warn or error") {
		t.Fatalf("bad level: %v", err)
	}
	if _, _, err := New(&bytes.Buffer{}, "info", "xml"); err == nil || !strings.Contains(err.Error(), "logfmt or json") {
		t.Fatalf("bad format: %v", err)
	}
}

// TestOneFormat checks that go-kit and slog entries come out with the same
// keys in the same order, in both formats, and that every logfmt line
// parses.
func TestOneFormat(t *testing.T) {
	for _, format := range Formats {
		var buf bytes.Buffer
		l, sl, err := New(&buf, "debug", format)
		if err != nil {
			t.Fatal(err)
		}
		level.Warn(log.With(l, "component", "x")).Log("msg", "from go-kit", "err", errors.New("boom"), "n", 3)
		sl.Info("from slog", "address", "127.0.0.1:1")
		l.Log("msg", "no level", "time", "spoofed")
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s: %d lines, want 3:\n%s", format, len(lines), buf.String())
		}
		for _, line := range lines {
			keys := entryKeys(t, format, line)
			if len(keys) < 4 || strings.Join(keys[:4], ",") != "time,level,source,msg" {
				t.Errorf("%s: keys %v do not start with time, level, source, msg:\n%s", format, keys, line)
			}
			if !strings.Contains(line, "logging_test.go:") {
				t.Errorf("%s: source is not the call site:\n%s", format, line)
			}
			if strings.Count(line, `time`) > 1 && !strings.Contains(line, "logged_time") {
				t.Errorf("%s: a spoofed time key was not renamed:\n%s", format, line)
			}
		}
		if !strings.Contains(lines[0], "boom") || !strings.Contains(lines[0], "warn") {
			t.Errorf("%s: error value or level lost:\n%s", format, lines[0])
		}
	}
}

// entryKeys returns the keys of one log line in their order.
func entryKeys(t *testing.T, format, line string) []string {
	t.Helper()
	var keys []string
	if format == "json" {
		dec := json.NewDecoder(strings.NewReader(line))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("not a JSON object: %s", line)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				t.Fatalf("bad JSON %v: %s", err, line)
			}
			keys = append(keys, tok.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("bad JSON %v: %s", err, line)
			}
		}
		return keys
	}
	d := logfmt.NewDecoder(strings.NewReader(line))
	for d.ScanRecord() {
		for d.ScanKeyval() {
			keys = append(keys, string(d.Key()))
		}
	}
	if err := d.Err(); err != nil {
		t.Fatalf("not logfmt: %v: %s", err, line)
	}
	return keys
}
