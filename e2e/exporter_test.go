package e2e

// The exporter binary: built once per test run with coverage
// instrumentation, started on 127.0.0.1:0 (its port read from its log),
// and run to completion for the commands that end by themselves.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The exporter binary, built once by the first test that needs it.
var (
	buildDir  string // removed by TestMain
	coverDir  string // GOCOVERDIR of every run of the binary
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "mintlify_exporter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	coverDir = coverageDir(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// coverageDir is where the binary writes its coverage counters (see
// CONTRIBUTING.md, Coverage): the test binary's -test.gocoverdir when
// given (go test -cover ./... -args -test.gocoverdir=DIR puts the unit
// tests' counters and the binary's side by side), else GOCOVERDIR (go
// test without -cover), else a directory removed with the build. A binary
// built with -cover warns on stderr when GOCOVERDIR is unset, so it is
// always set.
func coverageDir(tmp string) string {
	d := os.Getenv("GOCOVERDIR")
	if f := flag.Lookup("test.gocoverdir"); f != nil && f.Value.String() != "" {
		d = f.Value.String()
	}
	if d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	d = filepath.Join(tmp, "cover")
	if err := os.Mkdir(d, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return d
}

// exporterBinary returns the path of the exporter binary, building it the
// first time: go build -cover -o <tmp>/mintlify_exporter of the module root
// (the parent directory). Under -short it skips the test: building and
// running the binary is most of go test -short's time, and make test (or
// go test ./e2e/) runs every test that needs it.
func exporterBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the exporter binary: skipped under -short (go test ./e2e/ runs it)")
	}
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("no go command in PATH to build the exporter: %w", err)
			return
		}
		path := filepath.Join(buildDir, "mintlify_exporter")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goTool, "build", "-cover", "-o", path, "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build -cover -o %s ..: %v\n%s", path, err, out)
			return
		}
		buildPath = path
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// exporterEnv is the environment of every run of the exporter: the test's
// without MINTLIFY_ variables, GOCOVERDIR=coverDir, and extra.
func exporterEnv(extra ...string) []string {
	env := slices.DeleteFunc(environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOCOVERDIR=") })
	return append(append(env, "GOCOVERDIR="+coverDir), extra...)
}

// listening matches the line exporter-toolkit logs once the exporter
// listens, in both log formats, and captures the address.
var listening = regexp.MustCompile(`msg="Listening on" address=(\S+)|"msg":"Listening on","address":"([^"]+)"`)

// startExporter runs the exporter with args and env (added to the test's
// environment without its MINTLIFY_ variables) on 127.0.0.1:0, reads the
// port it got from its log and waits until /-/healthy answers 200. The
// process is killed when the test ends, and its output logged when the
// test failed.
func startExporter(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	return startExporterWith(t, func(addr string) error { return httpOK("http://" + addr + "/-/healthy") }, env, args...)
}

// startExporterWith is startExporter with another check that the exporter
// serves (for HTTPS or basic auth): healthy gets the address and returns
// nil once it answers.
func startExporterWith(t *testing.T, healthy func(addr string) error, env []string, args ...string) *process {
	t.Helper()
	p := launch(t, "mintlify_exporter", exporterBinary(t), exporterEnv(env...),
		append(slices.Clip(args), "--web.listen-address=127.0.0.1:0"))
	err := p.waitReady(func() error {
		if p.addr == "" {
			m := listening.FindStringSubmatch(p.stderr.String())
			if m == nil {
				return errors.New(`no "Listening on" line logged`)
			}
			p.addr = m[1] + m[2]
		}
		return healthy(p.addr)
	}, 20*time.Second)
	if err != nil {
		t.Fatalf("the exporter did not start serving: %v\n%s", err, p.tail(64<<10))
	}
	return p
}

// runResult is what one run of a command of the exporter produced.
type runResult struct {
	code           int // exit code; -1 when it did not exit by itself
	stdout, stderr string
}

// runExporter runs the exporter with args to its end (a command such as
// backfill or agent), with env added to the test's environment without
// its MINTLIFY_ variables, and returns what it printed and its exit code.
// It fails the test when the program does not end within a minute.
func runExporter(t *testing.T, env []string, args ...string) runResult {
	t.Helper()
	p := launch(t, "mintlify_exporter", exporterBinary(t), exporterEnv(env...), args)
	timer := time.NewTimer(time.Minute)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		t.Fatalf("mintlify_exporter %q did not end within a minute; output:\n%s", args, p.tail(64<<10))
	}
	return runResult{code: p.code, stdout: p.stdout.String(), stderr: p.stderr.String()}
}

// get sends a GET with the headers hdr to the exporter and returns the
// answer with its body.
func (p *process) get(t *testing.T, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	return getURL(t, httpClient, "http://"+p.addr+path, hdr)
}
