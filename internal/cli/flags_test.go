package cli

// First use and daily operation: help on every command, the demo for the
// agent commands, start-up refusals naming one flag, hostile values for
// every flag.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// runCtx calls runContext with ctx, args and env (MINTLIFY_ variables not
// in env are set to ""), recovering a panic into a test failure.
func runCtx(t *testing.T, ctx context.Context, env map[string]string, args ...string) (o runOutput) {
	t.Helper()
	for _, k := range []string{"MINTLIFY_API_KEY", "MINTLIFY_PROJECT_ID"} {
		t.Setenv(k, env[k])
	}
	var stdout, stderr bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("run %q panicked: %v", args, r)
			o = runOutput{code: -1, stdout: stdout.String(), stderr: stderr.String()}
		}
	}()
	code := runContext(ctx, args, strings.NewReader(""), &stdout, &stderr)
	return runOutput{code, stdout.String(), stderr.String()}
}

// cancelled is a context that has already ended: serve validates, starts
// everything, then stops at once.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// loopback is a listen address the tests may use.
const loopback = "--web.listen-address=127.0.0.1:0"

func TestHelpOnEveryCommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		own  []string // flags that must come before the global ones
		not  []string // serving flags a subcommand's help must not list
	}{
		{args: []string{"--help"}, own: []string{"--web.listen-address", "--mintlify.project-id", "--analytics.window", "--cache.file"}},
		{args: []string{"-h"}},
		{args: []string{"serve", "--help"}},
		{args: []string{"agent", "--help"}, own: []string{"agent message", "agent get"}, not: []string{"--web.listen-address", "--analytics.window"}},
		{args: []string{"agent", "message", "--help"}, own: []string{"--job=ID", "--prompt=TEXT", "--wait", "--wait.timeout"}, not: []string{"--web.listen-address", "--cache.file"}},
		{args: []string{"agent", "get", "--help"}, own: []string{"--job=ID"}, not: []string{"--web.listen-address", "--collector.visitors"}},
		{args: []string{"agent", "get", "--job=x", "--help"}, own: []string{"--job=ID"}},
		{args: []string{"agent", "message", "--prompt=-", "--help"}, own: []string{"--prompt=TEXT"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o := runCtx(t, context.Background(), nil, tt.args...)
			if o.code != 0 {
				t.Errorf("exit code %d, want 0; stderr:\n%s", o.code, o.stderr)
			}
			if o.stderr != "" {
				t.Errorf("stderr is not empty:\n%s", o.stderr)
			}
			if !strings.HasPrefix(o.stdout, "usage: "+exporterName) {
				t.Errorf("stdout is not a usage text:\n%s", o.stdout)
			}
			global := strings.Index(o.stdout, "Global flags")
			if len(tt.args) > 1 && global < 0 {
				t.Errorf("a subcommand's help has no global flags section:\n%s", o.stdout)
			}
			for _, w := range tt.own {
				i := strings.Index(o.stdout, w)
				if i < 0 {
					t.Errorf("help lacks %q:\n%s", w, o.stdout)
				} else if global >= 0 && i > global {
					t.Errorf("%q comes after the global flags:\n%s", w, o.stdout)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(o.stdout, w) {
					t.Errorf("the help of %q lists the serving flag %s:\n%s", tt.args, w, o.stdout)
				}
			}
			if len(tt.not) > 0 && !strings.Contains(o.stdout, "--mintlify.api-key-file") {
				t.Errorf("the help of %q does not list the --mintlify.* flags it uses:\n%s", tt.args, o.stdout)
			}
		})
	}
}

func TestAgentDemo(t *testing.T) {
	// Every demo command says on stderr, in one log line, that its data is
	// made up; nothing else is logged.
	const note = "DEMO MODE: a synthetic API started for this command; the jobs and their answers are made up"
	rest := func(stderr string) string {
		lines := stderrLines(stderr)
		if len(lines) == 0 || !strings.Contains(lines[0], note) {
			return "no demo note first: " + stderr
		}
		return strings.Join(lines[1:], "\n")
	}
	o := runCtx(t, context.Background(), nil, "agent", "get", "--demo", "--job="+demo.Jobs[2].ID)
	if o.code != 0 || rest(o.stderr) != "" {
		t.Fatalf("agent get --demo: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	var job struct{ ID, Status string }
	if err := json.Unmarshal([]byte(o.stdout), &job); err != nil || job.ID != demo.Jobs[2].ID || job.Status != "completed" {
		t.Errorf("agent get --demo printed %+v (%v):\n%s", job, err, o.stdout)
	}
	o = runCtx(t, context.Background(), nil, "agent", "message", "--demo", "--job="+demo.Jobs[0].ID, "--prompt=Also fix the links")
	if o.code != 0 || rest(o.stderr) != "" {
		t.Fatalf("agent message --demo: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	if err := json.Unmarshal([]byte(o.stdout), &job); err != nil || job.ID != demo.Jobs[0].ID || job.Status != "active" {
		t.Errorf("agent message --demo printed %+v (%v):\n%s", job, err, o.stdout)
	}
	o = runCtx(t, context.Background(), nil, "agent", "get", "--demo", "--job=nope")
	if o.code != 1 || rest(o.stderr) != "mintlify_exporter: error: job nope not found in project "+demo.Projects[0].ID {
		t.Errorf("agent get --demo --job=nope: exit %d, stderr %q", o.code, o.stderr)
	}
	for _, e := range demoExamples() {
		if !strings.Contains(e, "--demo") || !strings.HasPrefix(e, exporterName+" agent ") {
			t.Errorf("demo example %q is not an agent command with --demo", e)
		}
	}
}

// stderrLines returns the non-empty lines of stderr.
func stderrLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestRefusedAtStart checks settings that cannot work: each is refused
// with exactly one line on stderr (no info line before it) naming the flag
// at fault and no other flag.
func TestRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte(testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notADir := filepath.Join(dir, "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	token := write("token", "0123456789abcdef0123456789abcdef\n")
	shortToken := write("short-token", "abc\n")
	actingRules := write("acting.yml", "dry_run: false\nrules:\n  - name: thumbs-down\n    match: {alertname: A}\n    project: docs\n    key: k\n    prompt: p\n")
	badRules := write("bad.yml", "rules:\n  - name: thumbs-down\n    match: {alertname: A}\n    project: docs\n    key: k\n")
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		flag string   // the one flag the line names
		want []string // more substrings
	}{
		{"jobs.id without the watcher", ok, []string{"--jobs.id=j1"}, "--jobs.id", []string{"--collector.jobs"}},
		{"jobs.file without the watcher", ok, []string{"--jobs.file=" + keyFile + ".jobs"}, "--jobs.file", []string{"--collector.jobs"}},
		{"jobs.file missing", ok, []string{"--collector.jobs", "--jobs.file=" + keyFile + ".jobs"}, "--jobs.file", []string{"does not exist"}},
		{"jobs.file is the key file", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--collector.jobs", "--jobs.file=" + keyFile}, "--jobs.file", []string{"API key"}},
		{"cache file in a missing directory", ok, []string{"--cache.file=" + filepath.Join(dir, "missing", "cache")}, "--cache.file", []string{"does not exist", "mkdir -p"}},
		{"cache file under a file", ok, []string{"--cache.file=" + filepath.Join(notADir, "cache")}, "--cache.file", []string{"not a directory"}},
		{"cache file is a directory", ok, []string{"--cache.file=" + dir}, "--cache.file", []string{"is a directory"}},
		{"cache file is the key file", ok, []string{"--mintlify.api-key-file=" + keyFile, "--cache.file=" + keyFile}, "--cache.file", []string{"--mintlify.api-key-file", "same file"}},
		{"empty project id", map[string]string{"MINTLIFY_API_KEY": testKey}, []string{"--mintlify.project-id="}, "--mintlify.project-id", []string{"empty"}},
		{"telemetry path without slash", ok, []string{"--web.telemetry-path=metrics"}, "--web.telemetry-path", []string{"slash"}},
		{"telemetry path on readiness", ok, []string{"--web.telemetry-path=/-/ready"}, "--web.telemetry-path", []string{"/-/ready"}},
		{"telemetry path on health", ok, []string{"--web.telemetry-path=/-/healthy"}, "--web.telemetry-path", nil},
		{"telemetry path as a mux pattern", ok, []string{"--web.telemetry-path=GET /{x}"}, "--web.telemetry-path", nil},
		{"zero timeout", ok, []string{"--mintlify.timeout=0s"}, "--mintlify.timeout", []string{"positive"}},
		{"missing web config", ok, []string{"--web.config.file=" + filepath.Join(dir, "web.yml")}, "--web.config.file", []string{"no such file"}},
		{"missing key file", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + filepath.Join(dir, "nokey")}, "--mintlify.api-key-file", []string{"no such file"}},
		{"port in use", ok, []string{"--web.listen-address=" + busy.Addr().String()}, "--web.listen-address", []string{"already in use"}},
		{"bad listen address", ok, []string{"--web.listen-address=localhost"}, "--web.listen-address", []string{"HOST:PORT"}},
		{"negative max requests", ok, []string{"--web.max-requests=-1"}, "--web.max-requests", nil},
		{"bad api url", ok, []string{"--mintlify.api-url=api.mintlify.com"}, "--mintlify.api-url", []string{"http"}},
		{"job watcher with nothing to watch", ok, []string{"--collector.jobs"}, "--jobs.id", []string{"--jobs.file", "--jobs.discover", "nothing to watch"}},
		{"job id of an unknown project", ok, []string{"--collector.jobs", "--jobs.id=other/j1"}, "--jobs.id", []string{"--mintlify.project-id"}},
		{"remediation token without rules", ok, []string{"--remediation.token-file=" + token}, "--remediation.token-file", []string{"--remediation.config"}},
		{"remediation rules missing", ok, []string{"--remediation.config=" + filepath.Join(dir, "nope.yml")}, "--remediation.config", []string{"no such file"}},
		{"remediation rules broken", ok, []string{"--remediation.config=" + badRules}, "--remediation.config", []string{"rule thumbs-down", "prompt is required"}},
		{"remediation acting without authentication", ok, []string{"--remediation.config=" + actingRules, "--cache.file=" + filepath.Join(dir, "state.json")}, "--remediation.config",
			[]string{"--remediation.token-file", "--web.config.file", "dry_run"}},
		{"remediation acting without a ledger", ok, []string{"--remediation.config=" + actingRules, "--remediation.token-file=" + token}, "--remediation.config", []string{"--cache.file"}},
		{"remediation token too short", ok, []string{"--remediation.config=" + actingRules, "--remediation.token-file=" + shortToken}, "--remediation.token-file", []string{"16 characters"}},
		{"remediation token is an API key", ok, []string{"--remediation.config=" + actingRules, "--remediation.token-file=" + keyFile}, "--remediation.token-file", []string{"API key"}},
		{"every source off", ok, []string{"--no-collector.visitors", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback",
			"--no-collector.searches"}, "--collector.jobs", []string{"nothing to export"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.flag != "--web.listen-address" {
				args = append([]string{loopback}, args...)
			}
			o := runCtx(t, cancelled(), tt.env, args...)
			if o.code != 1 {
				t.Errorf("exit code %d, want 1", o.code)
			}
			lines := stderrLines(o.stderr)
			if len(lines) != 1 || len(errorLines(o.stderr)) != 1 {
				t.Fatalf("want exactly one line, an error; stderr:\n%s", o.stderr)
			}
			for _, w := range append([]string{tt.flag}, tt.want...) {
				if !strings.Contains(lines[0], w) {
					t.Errorf("the error does not mention %q:\n%s", w, lines[0])
				}
			}
			// No other flag of the exporter is named, except the ones the
			// case expects.
			for _, f := range allFlagNames(t) {
				if f != tt.flag && !contains(tt.want, f) && mentions(lines[0], f) {
					t.Errorf("the error names %s besides %s:\n%s", f, tt.flag, lines[0])
				}
			}
			assertNoSecret(t, o, testKey)
		})
	}
}

// mentions reports whether line names the flag f (not merely a longer
// flag that starts with f).
func mentions(line, f string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], f)
		if j < 0 {
			return false
		}
		end := i + j + len(f)
		if end == len(line) || !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz.-", rune(line[end])) {
			return true
		}
		i = end
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// allFlagNames returns "--name" of every flag of every command.
func allFlagNames(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range everyFlag(t) {
		out = append(out, "--"+f.flag.Name)
	}
	return out
}

func TestNeitherKeyNorProjectReportsBoth(t *testing.T) {
	for _, args := range [][]string{{loopback}, {"agent", "get", "--job=j1"}} {
		o := runCtx(t, cancelled(), nil, args...)
		lines := stderrLines(o.stderr)
		if o.code != 1 || len(lines) != 1 || !strings.Contains(lines[0], "no API key") || !strings.Contains(lines[0], "no project") {
			t.Errorf("%q: exit %d, want 1 and one line reporting both; stderr:\n%s", args, o.code, o.stderr)
		}
	}
}

// TestAcceptedAndWorking checks settings that used to fail or be ignored
// and now work: the run starts everything and stops (its context has
// ended) with exit code 0.
func TestAcceptedAndWorking(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("jobs", demo.Projects[0].ID+"/"+demo.Jobs[0].ID+"\n")
	acting := write("acting.yml", "dry_run: false\nrules:\n  - name: r\n    match: {alertname: A}\n    project: '{{ .Labels.project }}'\n    key: k\n    prompt: p\n")
	dryRun := write("dry.yml", "rules:\n  - name: r\n    match: {alertname: A}\n    project: p\n    key: k\n    prompt: p\n")
	// "secret", hashed with bcrypt (cost 4).
	basicAuth := write("web.yml", "basic_auth_users:\n  alertmanager: $2y$04$SbrHxDGOb6M6xOVtMrzvbuYudpI/hyOG0umz1hHd/tsGzgvDWmkEO\n")
	for _, tt := range []struct {
		name string
		args []string
		warn string // a warning that must be logged
	}{
		{"remediation dry run without authentication or cache file", []string{"--demo", "--remediation.config=" + dryRun}, "mode=\"dry run: nothing is sent\""},
		{"remediation acting with a token", []string{"--demo", "--remediation.config=" + acting, "--remediation.token-file=" + write("token", "0123456789abcdef0123\n"),
			"--cache.file=" + filepath.Join(dir, "cache-token")}, "mode=acting"},
		{"remediation acting with basic auth", []string{"--demo", "--remediation.config=" + acting, "--web.config.file=" + basicAuth,
			"--cache.file=" + filepath.Join(dir, "cache-basic")}, "mode=acting"},
		{"demo with the job watcher", []string{"--demo", "--collector.jobs"}, ""},
		{"demo with a job file", []string{"--demo", "--jobs.file=" + filepath.Join(dir, "jobs")}, ""},
		{"budget above the API's limit", []string{"--demo", "--mintlify.requests-per-hour=150"}, "--mintlify.requests-per-hour=150 is above the API's limit of 100"},
		{"cache file in a writable directory", []string{"--demo", "--cache.file=" + filepath.Join(dir, "cache")}, ""},
		{"telemetry path at the root", []string{"--demo", "--web.telemetry-path=/"}, "serves the metrics at /, in place of the landing page"},
		{"demo with another API address", []string{"--demo", "--mintlify.api-url=http://127.0.0.1:1"}, "--mintlify.api-url is ignored with --demo"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := runCtx(t, cancelled(), nil, append([]string{loopback}, tt.args...)...)
			if o.code != 0 {
				t.Errorf("exit code %d, want 0; stderr:\n%s", o.code, o.stderr)
			}
			if lines := errorLines(o.stderr); len(lines) != 0 {
				t.Errorf("errors logged: %q", lines)
			}
			if tt.warn != "" && !strings.Contains(o.stderr, tt.warn) {
				t.Errorf("no warning %q:\n%s", tt.warn, o.stderr)
			}
		})
	}
}

// flagOf is one flag of one command.
type flagOf struct {
	command []string // nil for the global flags
	flag    *kingpin.FlagModel
}

// everyFlag lists every flag of every command, hidden ones included.
func everyFlag(t *testing.T) []flagOf {
	t.Helper()
	var f flags
	app := newApp(&f)
	m := app.Model()
	var out []flagOf
	for _, fl := range m.Flags {
		out = append(out, flagOf{nil, fl})
	}
	var walk func(cmds []*kingpin.CmdModel)
	walk = func(cmds []*kingpin.CmdModel) {
		for _, c := range cmds {
			for _, fl := range c.Flags {
				out = append(out, flagOf{strings.Fields(c.FullCommand), fl})
			}
			walk(c.Commands)
		}
	}
	walk(m.Commands)
	return out
}

// TestHostileFlagValues runs every flag of every command with hostile
// values: nothing may panic, every failure is one line, and the key never
// shows. Serving runs stop at once (their context has ended) after
// starting everything against a fake API on loopback.
func TestHostileFlagValues(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every flag with a dozen values")
	}
	t.Chdir(t.TempDir()) // relative paths land here
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte(mintlifytest.DefaultKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := apitest.Fake(t, mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 20, Days: 40, End: time.Now().AddDate(0, 0, 2)})))
	fake.AddJob("docs", mintlifytest.JobSpec{ID: "j1"})
	env := map[string]string{"MINTLIFY_API_KEY": mintlifytest.DefaultKey, "MINTLIFY_PROJECT_ID": "docs"}

	common := []string{"", "garbage", "-1", "0", "99999999999999999999", "1000000h", "-5m", "ü∂\u202e☃", "/", "a\nb", "x\x00y", strings.Repeat("x", 5000)}
	special := map[string][]string{
		"web.listen-address":    {"", "garbage", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:ü", "[::1", "127.0.0.1:0", "a\nb:1"},
		"mintlify.api-url":      {"", "garbage", "ftp://127.0.0.1/", "http://", "http://127.0.0.1:99999", "http://127.0.0.1:1/ü", "-1", "http://user:pw@127.0.0.1:1", "a\nb"},
		"cache.file":            {keyFile, dir, "relative-cache"},
		"jobs.file":             {keyFile, dir, "relative-jobs"},
		"web.config.file":       {keyFile, dir},
		"mintlify.api-key-file": {keyFile, dir},
		"mintlify.project-id":   {"docs", "a/b", "..", "%2F"},
		"jobs.id":               {"docs/j1", "other/j1", "a/b/c", "/"},
		"analytics.window":      {"1d", "366d", "367d", "7d:site", "7d:other", "d", "1d:site:site"},
		"visitors.window":       {"7d"},
	}
	skip := map[string]bool{"help": true, "version": true, "help-long": true, "help-man": true,
		"completion-bash": true, "completion-script-bash": true, "completion-script-zsh": true}
	for _, fl := range everyFlag(t) {
		name := fl.flag.Name
		if skip[name] {
			continue
		}
		values := common
		if s, ok := special[name]; ok {
			if name == "web.listen-address" || name == "mintlify.api-url" {
				values = s
			} else {
				values = append(append([]string{}, common...), s...)
			}
		}
		t.Run(strings.Join(append(fl.command, name), " "), func(t *testing.T) {
			for _, v := range values {
				var args []string
				ctx := cancelled()
				switch {
				case len(fl.command) == 1 && fl.command[0] == cmdBackfill: // a dry run on the demo
					args = append(args, cmdBackfill, "--demo", "--dry-run")
					if name != "from" {
						args = append(args, "--from="+time.Now().UTC().AddDate(0, 0, -3).Format(time.DateOnly))
					}
					if name != "output" {
						args = append(args, "--output="+filepath.Join(t.TempDir(), "x.om"))
					}
				case fl.command != nil: // the agent commands, against the demo
					args = append(append(args, fl.command...), "--demo")
					if name != "job" && fl.command[1] != "create" {
						args = append(args, "--job=job-demo-done")
					}
					if (fl.command[1] == "message" || fl.command[1] == "create") && name != "prompt" {
						args = append(args, "--prompt=hi")
					}
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
				default:
					args = append(args, "--mintlify.api-url="+fake.URL(), "--collector.jobs")
					if name != "web.listen-address" {
						args = append(args, loopback)
					}
					if name != "jobs.id" {
						args = append(args, "--jobs.id=j1")
					}
				}
				args = append(args, "--"+name+"="+v)
				o := runCtx(t, ctx, env, args...)
				desc := fmt.Sprintf("--%s=%.40q (exit %d)", name, v, o.code)
				if strings.Contains(o.stderr, "goroutine ") || strings.Contains(o.stderr, "panic") || strings.Contains(o.stdout, "goroutine ") {
					t.Errorf("%s: a panic:\n%s", desc, o.stderr)
				}
				errs := errorLines(o.stderr)
				short := o.stderr
				if len(short) > 3000 {
					short = short[:3000] + "…"
				}
				if o.code != 0 && (len(errs) != 1 || !strings.HasPrefix(errs[0], exporterName+": error: ")) {
					t.Errorf("%s: failed without exactly one error line in the style of a flag error (%s: error: …):\n%s", desc, exporterName, short)
				}
				for _, l := range stderrLines(o.stderr) {
					if len(fl.command) == 1 { // backfill prints its plan and progress on stderr
						break
					}
					if !strings.HasPrefix(l, "time=") && !strings.HasPrefix(l, exporterName+": error: ") {
						t.Errorf("%s: a stderr line that is neither a log line nor an error (a multi-line error?): %.200q", desc, l)
					}
				}
				assertNoSecret(t, o, mintlifytest.DefaultKey)
			}
		})
	}
}

// TestDemoHonoursCollectorFlags: --demo serves every source the user did
// not turn off, and none that was.
func TestDemoHonoursCollectorFlags(t *testing.T) {
	f := &flags{}
	app := newApp(f)
	if _, err := app.Parse([]string{"--demo", "--no-collector.views", "--collector.visitors"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config(f, log.NewNopLogger())
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range collector.Sources {
		if got, want := slices.Contains(cfg.Collectors, src.Name), src.Name != "views"; got != want {
			t.Errorf("source %s served: %v, want %v (collectors %v)", src.Name, got, want, cfg.Collectors)
		}
	}
}

// TestBackfillHelpShowsItsOwnDefaults: backfill's help shows its own
// default budget, and not the job watcher it does not use.
func TestBackfillHelpShowsItsOwnDefaults(t *testing.T) {
	o := runCtx(t, cancelled(), nil, "backfill", "--help")
	if o.code != 0 {
		t.Fatalf("exit %d", o.code)
	}
	if !strings.Contains(o.stdout, "--mintlify.requests-per-hour=40 ") || strings.Contains(o.stdout, "requests-per-hour=90") {
		t.Errorf("backfill's help does not show its default budget of 40:\n%s", o.stdout)
	}
	if strings.Contains(o.stdout, "collector.jobs") {
		t.Errorf("backfill's help lists --collector.jobs, which it does not use:\n%s", o.stdout)
	}
	if main := runCtx(t, cancelled(), nil, "--help"); !strings.Contains(main.stdout, "--mintlify.requests-per-hour=90 ") {
		t.Errorf("the exporter's help lost its default budget of 90:\n%s", main.stdout)
	}
}

// TestCommandsRefuseFlagsTheyDoNotUse: a subcommand refuses a global flag
// its help does not list, naming it, before doing anything; one it lists is
// accepted.
func TestCommandsRefuseFlagsTheyDoNotUse(t *testing.T) {
	from := "--from=" + time.Now().UTC().AddDate(0, 0, -3).Format(time.DateOnly)
	for _, tt := range []struct {
		args []string
		flag string // refused, or "" when accepted
	}{
		{[]string{"backfill", "--demo", "--dry-run", from, "--output=x.om", "--analytics.window=7d"}, "--analytics.window"},
		{[]string{"backfill", "--demo", "--dry-run", from, "--output=x.om", "--visitors.window=7d"}, "--visitors.window"},
		{[]string{"backfill", "--demo", "--dry-run", from, "--output=x.om", "--collector.jobs"}, "--collector.jobs"},
		{[]string{"backfill", "--demo", "--dry-run", from, "--output=x.om", "--analytics.refresh-interval=1h"}, "--analytics.refresh-interval"},
		{[]string{"agent", "get", "--demo", "--job=job-demo-done", "--web.listen-address=:1"}, "--web.listen-address"},
		{[]string{"agent", "get", "--demo", "--job=job-demo-done", "--cache.file=x"}, "--cache.file"},
		{[]string{"backfill", "--demo", "--dry-run", from, "--output=x.om", "--analytics.page-size=100", "--conversations.max-pages=3"}, ""},
		{[]string{"agent", "get", "--demo", "--job=job-demo-done", "--mintlify.timeout=5s", "--log.level=warn"}, ""},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			o := runCtx(t, ctx, nil, tt.args...)
			errs := errorLines(o.stderr)
			if tt.flag == "" {
				if o.code != 0 || len(errs) != 0 {
					t.Errorf("exit %d, errors %q; want it accepted", o.code, errs)
				}
				return
			}
			if o.code == 0 || len(errs) != 1 || !strings.Contains(errs[0], "does not use "+tt.flag+" ") || !strings.Contains(errs[0], tt.args[0]+" --help") {
				t.Errorf("exit %d, errors %q; want one error naming %s and the command's help", o.code, errs, tt.flag)
			}
			if strings.Contains(o.stdout, "DEMO") || strings.Contains(o.stderr, "DEMO") || o.stdout != "" {
				t.Errorf("something ran before the refusal:\nstdout %s\nstderr %s", o.stdout, o.stderr)
			}
		})
	}
}

// TestAgentHelpSaysOneProject: the agent commands act on one project.
func TestAgentHelpSaysOneProject(t *testing.T) {
	o := runCtx(t, cancelled(), nil, "agent", "message", "--help")
	if !strings.Contains(o.stdout, "exactly one") || strings.Contains(o.stdout, "repeat for every") {
		t.Errorf("agent message's help does not say one project:\n%s", o.stdout)
	}
	if !strings.Contains(strings.Join(strings.Fields(o.stdout), " "), "for this command alone") {
		t.Errorf("agent message's help does not say its --demo starts its own API:\n%s", o.stdout)
	}
}

// TestParseErrorsNameTheFlag: what kingpin refuses is said in the style of
// every other configuration error, naming the flag and its value, and an
// unknown flag gets the nearest one.
func TestParseErrorsNameTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mintlify.timeout=30"}, `mintlify_exporter: error: --mintlify.timeout=30: time: missing unit in duration "30"; try --help`},
		{[]string{"--mintlify.timeout", "30"}, `mintlify_exporter: error: --mintlify.timeout=30: time: missing unit in duration "30"; try --help`},
		{[]string{"--log.level=verbose"}, `mintlify_exporter: error: --log.level=verbose: enum value must be one of debug,info,warn,error, got 'verbose'; try --help`},
		{[]string{"--mintlify.requests-per-hor=5"}, `mintlify_exporter: error: unknown flag --mintlify.requests-per-hor (did you mean --mintlify.requests-per-hour); try --help`},
		{[]string{"--something-else"}, `mintlify_exporter: error: unknown flag --something-else; try --help`},
	} {
		o := runCtx(t, cancelled(), nil, append(c.args, "--demo")...)
		if o.code != 1 || strings.TrimSpace(o.stderr) != c.want {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, o.code, o.stderr, c.want)
		}
	}
}

// TestIntegerFlagsParsedAsIntegers: an integer flag takes digits only, and
// a number too large for an int is refused as such, not wrapped around.
func TestIntegerFlagsParsedAsIntegers(t *testing.T) {
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for _, tc := range []struct{ arg, want string }{
		{"--mintlify.requests-per-hour=1.9", "not a whole number"},
		{"--mintlify.requests-per-hour=1e2", "not a whole number"},
		{"--web.max-requests=2.5", "not a whole number"},
		{"--analytics.page-size=99999999999999999999", "out of range"},
		{"--mintlify.requests-per-hour=9223372036854775807", "above the API's limit"},
	} {
		o := runCtx(t, cancelled(), ok, loopback, tc.arg)
		flag, _, _ := strings.Cut(tc.arg, "=")
		if tc.want == "above the API's limit" { // accepted, with the warning
			if o.code != 0 || !strings.Contains(o.stderr, "9223372036854775807") || strings.Contains(o.stderr, "-9223372036854775808") {
				t.Errorf("%s: exit %d:\n%s", tc.arg, o.code, o.stderr)
			}
			continue
		}
		if o.code != 1 || !strings.Contains(o.stderr, flag) || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%s: exit %d, want 1 and an error naming %s, %q:\n%s", tc.arg, o.code, flag, tc.want, o.stderr)
		}
	}
}

// TestPollIntervalMinimum: job reads are outside the request budget, so
// --jobs.poll-interval below a second is refused.
func TestPollIntervalMinimum(t *testing.T) {
	ok := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	for _, v := range []string{"1ns", "1ms", "999ms"} {
		o := runCtx(t, cancelled(), ok, loopback, "--collector.jobs", "--jobs.id=j1", "--jobs.poll-interval="+v)
		if o.code != 1 || !strings.Contains(o.stderr, "--jobs.poll-interval") || !strings.Contains(o.stderr, "from 1s") {
			t.Errorf("--jobs.poll-interval=%s: exit %d:\n%s", v, o.code, o.stderr)
		}
	}
	o := runCtx(t, cancelled(), ok, loopback, "--collector.jobs", "--jobs.id=j1", "--jobs.poll-interval=1s")
	if o.code != 0 {
		t.Errorf("--jobs.poll-interval=1s: exit %d:\n%s", o.code, o.stderr)
	}
}
