package e2e

// Running the programs of the stack: tool lookup, building the exporter,
// subprocesses on free loopback ports, bounded polling.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// toolset holds the paths of the Prometheus programs the test runs.
type toolset struct {
	prometheus, promtool, alertmanager, amtool string
}

// lookTools finds the Prometheus programs. When one is missing the test is
// skipped, or fails when the CI environment variable is set (CI installs
// them, see .ci/run).
func lookTools(t *testing.T) toolset {
	t.Helper()
	var missing []string
	find := func(pkg string, names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		missing = append(missing, names[0]+" (Debian package "+pkg+")")
		return ""
	}
	ts := toolset{
		prometheus: find("prometheus", "prometheus"),
		promtool:   find("prometheus", "promtool"),
		// Debian installs the Alertmanager server as prometheus-alertmanager.
		alertmanager: find("prometheus-alertmanager", "alertmanager", "prometheus-alertmanager"),
		amtool:       find("prometheus-alertmanager", "amtool"),
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("end-to-end test needs %s: install the Debian packages prometheus and prometheus-alertmanager "+
			"(apt-get install prometheus prometheus-alertmanager, or run scripts/ensure-tools.sh as root)",
			strings.Join(missing, ", "))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return ts
}

// buildExporter builds the exporter (the module root is the parent
// directory) into dir and returns the binary's path.
func buildExporter(t *testing.T, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command in PATH to build the exporter: %v", err)
	}
	bin := filepath.Join(dir, "mintlify_exporter")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -o %s ..: %v\n%s", bin, err, out)
	}
	return bin
}

// runTool runs a command line tool with stdin (may be nil) and returns its
// combined output.
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

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// process is a running program of the stack.
type process struct {
	name string
	addr string // host:port it listens on
	cmd  *exec.Cmd
	log  logbuf.Buffer // stdout and stderr
	done chan struct{}
	err  error // the result of Wait, once done is closed
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

var httpClient = &http.Client{Timeout: 5 * time.Second}

// startProcess runs bin with the arguments args returns for a free loopback
// address, and waits until GET readyPath on that address answers 200. When
// another program took the port in between, it tries again on a new one.
// The process is killed, and its output logged when the test failed, at
// the end of the test.
func startProcess(t *testing.T, name, bin string, env []string, args func(addr string) []string, readyPath string) *process {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p := &process{name: name, addr: freeAddr(t), done: make(chan struct{})}
		p.cmd = exec.Command(bin, args(p.addr)...)
		p.cmd.Env = env
		p.cmd.Stdout, p.cmd.Stderr = &p.log, &p.log
		if err := p.cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", name, err)
		}
		go func() {
			p.err = p.cmd.Wait()
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
		err := p.waitReady(readyPath, 30*time.Second)
		if err == nil {
			return p
		}
		if attempt < 3 && p.exited() && strings.Contains(p.log.String(), "address already in use") {
			continue
		}
		t.Fatalf("%s did not become ready on %s: %v\n%s", name, p.addr, err, p.tail(64<<10))
	}
}

// waitReady polls GET readyPath until it answers 200, the process exits or
// timeout passes.
func (p *process) waitReady(readyPath string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if p.exited() {
			return fmt.Errorf("exited: %v", p.err)
		}
		resp, err := httpClient.Get("http://" + p.addr + readyPath)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(resp.Status)
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
const pollEvery = 200 * time.Millisecond

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
