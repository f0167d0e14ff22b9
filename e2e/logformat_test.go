package e2e

// One log format for every line the binary writes, its own and
// exporter-toolkit's.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-logfmt/logfmt"
)

// logLines returns the non-empty lines of a log.
func logLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// logKeys returns the keys of every line of a log, in order, failing the
// test on a line that does not parse.
func logKeys(t *testing.T, format, log string) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range logLines(log) {
		var keys []string
		if format == "json" {
			dec := json.NewDecoder(strings.NewReader(line))
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				t.Fatalf("not a JSON object: %q", line)
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					t.Fatalf("bad JSON (%v): %q", err, line)
				}
				keys = append(keys, tok.(string))
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("bad JSON (%v): %q", err, line)
				}
			}
		} else {
			d := logfmt.NewDecoder(strings.NewReader(line))
			for d.ScanRecord() {
				for d.ScanKeyval() {
					keys = append(keys, string(d.Key()))
				}
			}
			if err := d.Err(); err != nil {
				t.Fatalf("not logfmt (%v): %q", err, line)
			}
		}
		out = append(out, keys)
	}
	return out
}

// TestLogFormat starts the real binary (demo mode), lets it serve,
// stops it with SIGTERM, and parses every line it logged, in both formats:
// each starts with the keys time, level, source, msg, the exporter's own
// lines and exporter-toolkit's alike.
func TestLogFormat(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"logfmt", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			p := startExporter(t, nil, "--demo", "--log.format="+format)
			p.stop(t)
			if out := p.stdout.String(); out != "" {
				t.Errorf("logs on stdout:\n%s", out)
			}
			msgs := p.stderr.String()
			keys := logKeys(t, format, msgs)
			for _, want := range []string{"starting mintlify_exporter", "Listening on", "shutting down", "stopped"} {
				if !strings.Contains(msgs, want) {
					t.Errorf("no %q line:\n%s", want, msgs)
				}
			}
			for i, k := range keys {
				if len(k) < 4 || strings.Join(k[:4], ",") != "time,level,source,msg" {
					t.Errorf("line %d keys %v do not start with time, level, source, msg:\n%s", i+1, k, logLines(msgs)[i])
				}
			}
		})
	}
}
