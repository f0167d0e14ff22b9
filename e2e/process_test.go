package e2e

// Running programs: tool lookup, one process runner with its output
// captured, free loopback ports for the programs that need one chosen for
// them, bounded polling.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// toolset holds the paths of the Prometheus programs the test runs.
type toolset struct {
	prometheus, promtool, alertmanager, amtool string
}

// lookTool finds a program under one of names. When it is missing the
// test is skipped, or fails when the CI environment variable is set (CI
// installs the Debian package pkg, see .ci/run).
func lookTool(t *testing.T, pkg string, names ...string) string {
	t.Helper()
	ts := lookPrograms(t, []program{{pkg, names}})
	return ts[0]
}

// program is a program the tests may need: the Debian package that has it
// and the names it may be installed under.
type program struct {
	pkg   string
	names []string
}

// lookPrograms finds every program, or skips the test (fails it when CI
// is set) naming all the missing ones.
func lookPrograms(t *testing.T, progs []program) []string {
	t.Helper()
	var paths, missing []string
	pkgs := map[string]bool{}
	for _, pr := range progs {
		found := ""
		for _, n := range pr.names {
			if p, err := exec.LookPath(n); err == nil {
				found = p
				break
			}
		}
		if found == "" {
			missing = append(missing, pr.names[0]+" (Debian package "+pr.pkg+")")
			pkgs[pr.pkg] = true
		}
		paths = append(paths, found)
	}
	if len(missing) > 0 {
		var list []string
		for _, pr := range progs {
			if pkgs[pr.pkg] {
				list = append(list, pr.pkg)
				delete(pkgs, pr.pkg)
			}
		}
		msg := fmt.Sprintf("this test needs %s: install the Debian packages %s "+
			"(apt-get install %s, or run scripts/ensure-tools.sh as root)",
			strings.Join(missing, ", "), strings.Join(list, " and "), strings.Join(list, " "))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return paths
}

// lookTools finds the Prometheus programs. When one is missing the test is
// skipped, or fails when the CI environment variable is set (CI installs
// them, see .ci/run).
func lookTools(t *testing.T) toolset {
	t.Helper()
	p := lookPrograms(t, []program{
		{"prometheus", []string{"prometheus"}},
		{"prometheus", []string{"promtool"}},
		// Debian installs the Alertmanager server as prometheus-alertmanager.
		{"prometheus-alertmanager", []string{"alertmanager", "prometheus-alertmanager"}},
		{"prometheus-alertmanager", []string{"amtool"}},
	})
	return toolset{prometheus: p[0], promtool: p[1], alertmanager: p[2], amtool: p[3]}
}

// runTool runs a command line tool with stdin (may be nil) in the test's
// environment and returns its combined output.
func runTool(t *testing.T, stdin []byte, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// freeAddr returns a loopback address whose port was free a moment ago,
// for programs that cannot report the port they chose (startProcess tries
// again when another program took it in between).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// process is a running program.
type process struct {
	name   string
	addr   string // host:port it listens on
	cmd    *exec.Cmd
	log    logbuf.Buffer // stdout and stderr, interleaved
	stdout logbuf.Buffer
	stderr logbuf.Buffer
	done   chan struct{}
	err    error // the result of Wait, once done is closed
	code   int   // the exit code once done is closed; -1 when killed by a signal
}

// launch starts bin with args and env, capturing its output. At the end of
// the test the process is killed if it still runs, and its output logged
// when the test failed.
func launch(t *testing.T, name, bin string, env, args []string) *process {
	t.Helper()
	p := &process{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout = io.MultiWriter(&p.stdout, &p.log)
	p.cmd.Stderr = io.MultiWriter(&p.stderr, &p.log)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("---- %s (%s) output:\n%s", p.name, p.addr, p.tail(256<<10))
		}
	})
	return p
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// tail returns the last max bytes of the process's output.
func (p *process) tail(max int) string {
	s := p.log.String()
	if len(s) > max {
		s = "[...]\n" + s[len(s)-max:]
	}
	return s
}

// stopTimeout is how long stop waits for a process to exit after SIGTERM:
// well over the exporter's shutdown grace (4 s), for a loaded machine.
const stopTimeout = 10 * time.Second

// stop sends SIGTERM, waits for the process to exit and fails the test
// when it does not within stopTimeout or exits with another code than 0.
// It returns how long the exit took.
func (p *process) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !p.exited() {
		t.Fatalf("SIGTERM to %s: %v", p.name, err)
	}
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		t.Fatalf("%s did not exit within %s of SIGTERM; output:\n%s", p.name, stopTimeout, p.tail(64<<10))
	}
	took := time.Since(start)
	if p.code != 0 {
		t.Errorf("%s: exit code %d after SIGTERM, want 0; output:\n%s", p.name, p.code, p.tail(64<<10))
	}
	return took
}

// httpClient is the tests' HTTP client: bodies as sent (no transparent
// gzip), one connection a request.
var httpClient = &http.Client{
	Timeout:   20 * time.Second,
	Transport: &http.Transport{DisableCompression: true, DisableKeepAlives: true},
}

// startProcess runs bin with the arguments args returns for a free loopback
// address, and waits until GET readyPath on that address answers 200. When
// another program took the port in between, it tries again on a new one.
// It is for programs that cannot report the port they listen on; the
// exporter has startExporter.
func startProcess(t *testing.T, name, bin string, env []string, args func(addr string) []string, readyPath string) *process {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		p := launch(t, name, bin, env, args(addr))
		p.addr = addr
		err := p.waitReady(func() error { return httpOK("http://" + addr + readyPath) }, 30*time.Second)
		if err == nil {
			return p
		}
		if attempt < 3 && p.exited() && strings.Contains(p.log.String(), "address already in use") {
			continue
		}
		t.Fatalf("%s did not become ready on %s: %v\n%s", name, p.addr, err, p.tail(64<<10))
	}
}

// httpOK returns nil when GET url answers 200.
func httpOK(url string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return answersOK(httpClient, req)
}

// answersOK sends req through c and returns nil when the answer is 200.
func answersOK(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

// waitReady calls ready until it returns nil, the process exits or timeout
// passes.
func (p *process) waitReady(ready func() error, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if p.exited() {
			return fmt.Errorf("exited: %v", p.err)
		}
		err := ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: %v", timeout, err)
		}
		select {
		case <-tick.C:
		case <-p.done:
		}
	}
}

// pollEvery is how often eventually checks a condition.
const pollEvery = 100 * time.Millisecond

// eventually calls check until it returns "" or timeout passes, and then
// fails the test with what and the last reason check gave.
func eventually(t *testing.T, timeout time.Duration, what string, check func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		why := check()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, timeout, why)
		}
		<-tick.C
	}
}

// environ is the test's environment without MINTLIFY_ variables, plus
// extra.
func environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MINTLIFY_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}
