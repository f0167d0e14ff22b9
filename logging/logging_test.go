package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-kit/log/level"
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
		if !strings.Contains(buf.String(), "caller=logging_test.go:") {
			t.Errorf("caller is not the logging call site:\n%s", buf.String())
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
	if m["msg"] != "hello" || m["level"] != "info" || m["ts"] == nil || m["project"] != "docs" {
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
