package main

// Hardening tests: secrets never leak under faults, the key file is
// re-read on rotation and checked for permissions, the exporter serves
// under load with --web.max-requests enforced, and the exporter-toolkit web
// config (TLS, basic auth) works for real. Tests that need the binary are
// subtests of TestHardBinary, which builds it once.

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/crypto/bcrypt"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// Distinctive admin keys: a test fails if any part of them shows up.
const (
	hardKey        = "mint_SECRETSECRETSECRET0123456789abcdef"
	hardRotatedKey = "mint_SECRETROTATED9876543210fedcba98765"
)

// hardSecretMarks are the substrings searched for in every output.
var hardSecretMarks = []string{hardKey, hardRotatedKey, "SECRETSECRET", "SECRETROTATED"}

// hardProc is one running exporter.
type hardProc struct {
	cmd            *exec.Cmd
	addr           string
	stdout, stderr logbuf.Buffer
	done           chan struct{}
	code           int
}

var hardListening = regexp.MustCompile(`msg="Listening on" address=(127\.0\.0\.1:[0-9]+)`)

// hardStart runs the binary on a free loopback port (it listens on port 0
// and the port is read from its log) without any MINTLIFY_ variable of the
// test's environment. The process is killed when the test ends.
func hardStart(t *testing.T, bin string, args ...string) *hardProc {
	t.Helper()
	p := &hardProc{done: make(chan struct{})}
	p.cmd = exec.Command(bin, append(slices.Clip(args), "--web.listen-address=127.0.0.1:0")...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MINTLIFY_") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		case err != nil:
			p.code = -1
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("exporter stderr:\n%s", p.stderr.String())
		}
	})
	hardWait(t, "the exporter to listen", 10*time.Second, func() bool {
		m := hardListening.FindStringSubmatch(p.stderr.String())
		if m != nil {
			p.addr = m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("the exporter exited with %d:\n%s", p.code, p.stderr.String())
		default:
		}
		return m != nil
	})
	return p
}

// stop sends SIGTERM and returns the exit code.
func (p *hardProc) stop(t *testing.T) int {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.code
	case <-time.After(10 * time.Second):
		t.Fatal("the exporter did not exit within 10s of SIGTERM")
		return -1
	}
}

// peakRSS returns the process's peak resident set size in bytes.
func (p *hardProc) peakRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+([0-9]+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// hardWait polls cond every 20ms until it holds, failing after timeout.
// Only the real binary's behaviour is waited for this way.
func hardWait(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var hardHTTP = &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableCompression: true}}

// hardGet fetches url and returns the status and the body.
func hardGet(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	res, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: reading: %v", url, err)
	}
	return res.StatusCode, string(b)
}

// hardValue returns the value of the series of name with exactly the
// given labels (name, value pairs) in a text exposition.
func hardValue(t *testing.T, body, name string, labels ...string) (float64, bool) {
	t.Helper()
	// Parse only the family's lines: a large exposition parses slowly
	// under the race detector.
	var family strings.Builder
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") ||
			strings.HasPrefix(line, "# HELP "+name+" ") || strings.HasPrefix(line, "# TYPE "+name+" ") {
			family.WriteString(line)
		}
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(family.String()))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range fams[name].GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if maps.Equal(got, want) {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// hardKeyFile writes key to a 0600 file, replacing any earlier file by a
// rename (as a secret manager does), and returns its path.
func hardKeyFile(t *testing.T, path, key string) string {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// hardNoSecret fails when any secret mark appears in any of the texts.
func hardNoSecret(t *testing.T, texts map[string]string) {
	t.Helper()
	for name, text := range texts {
		for _, s := range hardSecretMarks {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s contains the secret %q: …%s…", name, s[:9], text[max(0, i-80):min(len(text), i+80)])
			}
		}
	}
}

// hardFake is a fake API accepting key, with a small project "docs" and a
// job "job1".
func hardFake(t *testing.T, key string, paths int, opts ...mintlifytest.Option) *mintlifytest.Server {
	t.Helper()
	opts = append([]mintlifytest.Option{
		mintlifytest.WithKeys(key),
		mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 5, Paths: paths, Days: 30})),
	}, opts...)
	fake := mintlifytest.NewServer(opts...)
	t.Cleanup(fake.Close)
	fake.AddJob("docs", mintlifytest.JobSpec{ID: "job1"})
	return fake
}

func TestHardBinary(t *testing.T) {
	bin := binary(t)
	t.Run("Secrets", func(t *testing.T) { hardSecrets(t, bin) })
	t.Run("KeyRotation", func(t *testing.T) { hardKeyRotation(t, bin) })
	t.Run("WebConfigTLS", func(t *testing.T) { hardWebConfig(t, bin) })
	t.Run("Load", func(t *testing.T) { hardLoad(t, bin) })
}

// hardSecrets runs the exporter at debug level through a representative
// set of faults and searches every output for the key.
func hardSecrets(t *testing.T, bin string) {
	fake := hardFake(t, hardKey, 300)
	keyFile := hardKeyFile(t, filepath.Join(t.TempDir(), "key"), hardKey)
	p := hardStart(t, bin, "--mintlify.api-url="+fake.URL(), "--mintlify.api-key-file="+keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--log.level=debug", "--analytics.window=1d",
		"--analytics.refresh-interval=100ms", "--mintlify.requests-per-hour=10000000", "--mintlify.timeout=200ms",
		"--collector.jobs", "--jobs.id=job1", "--jobs.poll-interval=200ms")
	base := "http://" + p.addr
	bodies := map[string]string{}
	scrape := func(step string) string {
		var metrics string
		for _, path := range []string{"/metrics", "/", "/-/ready", "/-/healthy"} {
			_, body := hardGet(t, hardHTTP, base+path)
			bodies[step+" "+path] = body
			if path == "/metrics" {
				metrics = body
			}
		}
		return metrics
	}
	up := func() bool {
		v, ok := hardValue(t, scrape("poll"), "mintlify_up", "project", "docs", "source", "visitors")
		return ok && v == 1
	}
	lastSuccess := func() float64 {
		v, _ := hardValue(t, scrape("poll"), "mintlify_last_success_timestamp_seconds", "project", "docs", "source", "visitors")
		return v
	}
	hardWait(t, "the first snapshot", 15*time.Second, up)

	add := func(f mintlifytest.Fault) (func(), func()) {
		var remove func()
		return func() { remove = fake.AddFault(f) }, func() { remove() }
	}
	type step struct {
		name           string
		apply, restore func()
		logs           string
	}
	var steps []step
	for _, s := range []struct {
		name  string
		fault mintlifytest.Fault
		logs  string
	}{
		{"403", mintlifytest.Fault{Status: 403}, "HTTP 403"},
		{"429", mintlifytest.Fault{Status: 429, RetryAfter: "1"}, "HTTP 429"},
		{"500", mintlifytest.Fault{Status: 500}, "HTTP 500"},
		{"malformed", mintlifytest.Fault{Body: `{"totals":`}, "malformed JSON"},
		{"timeout", mintlifytest.Fault{Delay: 3 * time.Second}, "no answer within 200ms"},
		{"key echoed in an error", mintlifytest.Fault{Status: 400,
			Body: `{"error":"invalid key ` + hardKey + `","details":[{"message":"Authorization: Bearer ` + hardKey + `"}]}`}, "HTTP 400"},
		{"key echoed in a malformed answer", mintlifytest.Fault{
			Body: `{"id":"job1","status":"active","createdAt":"at ` + hardKey + `","totals":{"human":"x ` + hardKey + `"}}`}, "totals.human"},
	} {
		apply, restore := add(s.fault)
		steps = append(steps, step{s.name, apply, restore, s.logs})
	}
	steps = append([]step{{"401 (key revoked)", func() { fake.RevokeKey(hardKey) }, func() { fake.SetKeys(hardKey) }, "HTTP 401"}}, steps...)

	failures := func() int { return strings.Count(p.stderr.String(), "visitors refresh failed") }
	// One fault after the other: each changes the error, so each is
	// logged once.
	for _, s := range steps {
		before := failures()
		s.apply()
		hardWait(t, s.name+" to be logged", 15*time.Second, func() bool {
			scrape("poll") // scrapes start the refreshes
			return failures() > before
		})
		if up() {
			t.Errorf("%s: mintlify_up is 1", s.name)
		}
		s.restore()
		if !strings.Contains(p.stderr.String(), s.logs) {
			t.Errorf("%s: the log does not say %q", s.name, s.logs)
		}
	}
	hardWait(t, "recovery", 15*time.Second, up)

	// Rotation: the file gets a new key and the API accepts only it.
	rotated := time.Now()
	hardKeyFile(t, keyFile, hardRotatedKey)
	fake.SetKeys(hardRotatedKey)
	hardWait(t, "a refresh with the rotated key", 15*time.Second, func() bool {
		return up() && lastSuccess() > float64(rotated.UnixNano())/1e9
	})
	scrape("rotated")

	if code := p.stop(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	bodies["stdout"], bodies["stderr"] = p.stdout.String(), p.stderr.String()
	if !strings.Contains(bodies["stderr"], "level=debug") {
		t.Error("nothing logged at debug level")
	}
	hardNoSecret(t, bodies)
}

// hardKeyRotation: a rotated key file is used by the next refresh without
// a restart, and the old key is no longer sent.
func hardKeyRotation(t *testing.T, bin string) {
	const keyA, keyB = "mint_rotationKeyA0123456789abcdef", "mint_rotationKeyB0123456789abcdef"
	fake := hardFake(t, keyA, 100)
	keyFile := hardKeyFile(t, filepath.Join(t.TempDir(), "key"), keyA)
	p := hardStart(t, bin, "--mintlify.api-url="+fake.URL(), "--mintlify.api-key-file="+keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.window=1d", "--analytics.refresh-interval=1s",
		"--mintlify.requests-per-hour=100000")
	lastSuccess := func() float64 {
		_, body := hardGet(t, hardHTTP, "http://"+p.addr+"/metrics")
		v, _ := hardValue(t, body, "mintlify_last_success_timestamp_seconds", "project", "docs", "source", "visitors")
		return v
	}
	hardWait(t, "the first snapshot with key A", 15*time.Second, func() bool { return lastSuccess() > 0 })

	hardKeyFile(t, keyFile, keyB)
	fake.SetKeys(keyB)
	rotated := time.Now()
	n := len(fake.Requests())
	hardWait(t, "a successful refresh with key B", 15*time.Second, func() bool { return lastSuccess() > float64(rotated.UnixNano())/1e9 })

	var sawB bool
	for _, r := range fake.Requests()[n:] {
		switch r.AuthHeader {
		case "Bearer " + keyB:
			sawB = sawB || r.Status == http.StatusOK
		case "Bearer " + keyA:
			if sawB {
				t.Fatal("key A sent after key B was used")
			}
		default:
			t.Fatal("a request with an unexpected Authorization header")
		}
	}
	if !sawB {
		t.Fatal("no successful request with key B")
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if s := p.stderr.String(); strings.Contains(s, keyA) || strings.Contains(s, keyB) {
		t.Error("a key appears in the log")
	}
}

// hardRun runs the program in-process (for commands that end by
// themselves) and returns its exit code, stdout and stderr.
func hardRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestHardKeyFileMode: a key file readable by every user gets a warning,
// a private one does not.
func TestHardKeyFileMode(t *testing.T) {
	fake := hardFake(t, hardKey, 10)
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o644, true}, {0o604, true}, {0o640, false}, {0o600, false}, {0o400, false}} {
		path := hardKeyFile(t, filepath.Join(t.TempDir(), "key"), hardKey)
		if err := os.Chmod(path, c.mode); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := hardRun("agent", "get", "--job=job1", "--mintlify.api-url="+fake.URL(),
			"--mintlify.api-key-file="+path, "--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches")
		if code != 0 || !strings.Contains(stdout, `"job1"`) {
			t.Fatalf("mode %04o: exit %d\nstdout: %s\nstderr: %s", c.mode, code, stdout, stderr)
		}
		warned := strings.Contains(stderr, "level=warn") && strings.Contains(stderr, "readable by every user")
		if warned != c.warn {
			t.Errorf("mode %04o: warned %v, want %v:\n%s", c.mode, warned, c.warn, stderr)
		}
		hardNoSecret(t, map[string]string{"stdout": stdout, "stderr": stderr})
	}
}

// TestHardAgentSecrets: the agent commands' outputs on errors never hold
// the key, at debug level, even when the API echoes it.
func TestHardAgentSecrets(t *testing.T) {
	fake := hardFake(t, hardKey, 10)
	keyFile := hardKeyFile(t, filepath.Join(t.TempDir(), "key"), hardKey)
	base := []string{"--mintlify.api-url=" + fake.URL(), "--mintlify.api-key-file=" + keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--log.level=debug", "--mintlify.timeout=200ms"}
	get := []string{"agent", "get", "--job=job1"}
	msg := []string{"agent", "message", "--job=job1", "--prompt=update the quickstart"}
	echo := `{"error":"bad key ` + hardKey + `","details":[{"message":"Bearer ` + hardKey + `"}]}`
	for _, c := range []struct {
		name  string
		cmd   []string
		fault *mintlifytest.Fault
		setup func() func()
		code  int
	}{
		{name: "get ok", cmd: get},
		{name: "message ok", cmd: msg},
		{name: "get 401", cmd: get, setup: func() func() { fake.RevokeKey(hardKey); return func() { fake.SetKeys(hardKey) } }, code: 1},
		{name: "message 401", cmd: msg, setup: func() func() { fake.RevokeKey(hardKey); return func() { fake.SetKeys(hardKey) } }, code: 1},
		{name: "get 403", cmd: get, fault: &mintlifytest.Fault{Status: 403}, code: 1},
		{name: "get 429", cmd: get, fault: &mintlifytest.Fault{Status: 429, RetryAfter: "30"}, code: 1},
		{name: "get 404", cmd: []string{"agent", "get", "--job=nope"}, code: 1},
		{name: "get malformed", cmd: get, fault: &mintlifytest.Fault{Body: `{"id":`}, code: 1},
		{name: "get key echoed", cmd: get, fault: &mintlifytest.Fault{Status: 400, Body: echo}, code: 1},
		{name: "get key echoed in a job", cmd: get, fault: &mintlifytest.Fault{Body: `{"id":"` + hardKey + `","status":5}`}, code: 1},
		{name: "message 500", cmd: msg, fault: &mintlifytest.Fault{Status: 500, Body: echo}, code: 1},
		{name: "message timeout", cmd: msg, fault: &mintlifytest.Fault{Delay: 2 * time.Second}, code: 1},
		{name: "message key echoed", cmd: msg, fault: &mintlifytest.Fault{Status: 400, Body: echo}, code: 1},
		{name: "message 429", cmd: msg, fault: &mintlifytest.Fault{Status: 429, Body: echo}, code: 1},
		{name: "get key echoed in a non-JSON error", cmd: get, fault: &mintlifytest.Fault{Status: 404, Body: "<html>Bearer " + hardKey + "</html>"}, code: 1},
		// A value quoted in a decode error is cut at 40 bytes: the cut
		// must not leave most of the key behind.
		{name: "get key in a bad createdAt", cmd: get, fault: &mintlifytest.Fault{Body: `{"id":"job1","status":"active","createdAt":"at ` + hardKey + `"}`}, code: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			undo := func() {}
			if c.setup != nil {
				undo = c.setup()
			}
			if c.fault != nil {
				undo = fake.AddFault(*c.fault)
			}
			defer undo()
			code, stdout, stderr := hardRun(append(slices.Clip(c.cmd), base...)...)
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout, stderr)
			}
			if c.code != 0 && strings.TrimSpace(stderr) == "" {
				t.Error("an error without a message")
			}
			hardNoSecret(t, map[string]string{"stdout": stdout, "stderr": stderr})
		})
	}
}

// hardCert writes a self-signed ECDSA certificate for 127.0.0.1 and its
// key, and returns their paths and a pool trusting it.
func hardCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mintlify_exporter test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// hardWebConfig: with --web.config.file, HTTPS with the right user
// succeeds, a scrape without or with wrong credentials gets 401, and plain
// HTTP gets no metrics.
func hardWebConfig(t *testing.T, bin string) {
	dir := t.TempDir()
	certFile, keyFile, pool := hardCert(t, dir)
	const user, password = "prometheus", "correct horse battery staple"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yml")
	cfg := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  %s: %s\n", certFile, keyFile, user, hash)
	if err := os.WriteFile(webConfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := hardFake(t, hardKey, 10)
	apiKey := hardKeyFile(t, filepath.Join(dir, "api-key"), hardKey)
	p := hardStart(t, bin, "--web.config.file="+webConfig, "--mintlify.api-url="+fake.URL(),
		"--mintlify.api-key-file="+apiKey, "--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.window=1d")

	tlsClient := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(scheme, u, pw string) (int, string, error) {
		req, err := http.NewRequest(http.MethodGet, scheme+"://"+p.addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if u != "" {
			req.SetBasicAuth(u, pw)
		}
		c := tlsClient
		if scheme == "http" {
			c = hardHTTP
		}
		res, err := c.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, string(b), err
	}
	code, body, err := get("https", user, password)
	if err != nil || code != http.StatusOK || !strings.Contains(body, `mintlify_up{project="docs",source="visitors"} 1`) {
		t.Fatalf("HTTPS scrape with credentials: %d %v\n%.500s", code, err, body)
	}
	for _, c := range []struct{ u, pw string }{{"", ""}, {user, "wrong"}, {"root", password}} {
		code, body, err := get("https", c.u, c.pw)
		if err != nil || code != http.StatusUnauthorized || strings.Contains(body, "mintlify_") {
			t.Errorf("HTTPS scrape as %q/%q: %d %v, want 401 without metrics", c.u, c.pw, code, err)
		}
	}
	code, body, err = get("http", user, password)
	if err == nil && (code == http.StatusOK || strings.Contains(body, "mintlify_")) {
		t.Errorf("plain HTTP scrape answered %d with metrics", code)
	}
	insecure := &http.Client{Timeout: 5 * time.Second}
	if _, err := insecure.Get("https://" + p.addr + "/metrics"); err == nil {
		t.Error("a client that does not trust the certificate connected")
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
}

// hardLoadResult is what one load phase observed.
type hardLoadResult struct {
	requests, ok, unavailable, failed int
	elapsed, p50, p99, max            time.Duration
	bytes                             int64
}

// hardLoadPhase runs 50 concurrent scrapers of url until d passes or
// 20,000 scrapes were made.
func hardLoadPhase(t *testing.T, url string, d time.Duration) hardLoadResult {
	t.Helper()
	const scrapers, maxRequests = 50, 20000
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: scrapers, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		res       hardLoadResult
		n         atomic.Int64
		wg        sync.WaitGroup
		failures  []string
	)
	begin := time.Now()
	stop := begin.Add(d)
	for range scrapers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) && n.Add(1) <= maxRequests {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Accept-Encoding", "gzip")
				start := time.Now()
				r, err := c.Do(req)
				var size int64
				if err == nil {
					size, err = io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
				took := time.Since(start)
				mu.Lock()
				res.requests++
				switch {
				case err != nil:
					res.failed++
					failures = append(failures, err.Error())
				case r.StatusCode == http.StatusOK && size > 0:
					res.ok++
					res.bytes += size
					latencies = append(latencies, took)
				case r.StatusCode == http.StatusServiceUnavailable:
					res.unavailable++
				default:
					res.failed++
					failures = append(failures, fmt.Sprintf("HTTP %d, %d bytes", r.StatusCode, size))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(begin)
	if len(failures) > 0 {
		t.Errorf("%d failed scrapes, e.g. %v", len(failures), failures[:min(3, len(failures))])
	}
	slices.Sort(latencies)
	if len(latencies) > 0 {
		res.p50 = latencies[len(latencies)/2]
		res.p99 = latencies[len(latencies)*99/100]
		res.max = latencies[len(latencies)-1]
	}
	return res
}

// hardLoad: 50 concurrent scrapers for 10 s against 10,000 paths × 3
// windows while refreshes keep running against a slow fake: no scrape
// fails; with --web.max-requests=5 the excess gets 503 and nothing else
// fails; peak memory stays bounded.
func hardLoad(t *testing.T, bin string) {
	if testing.Short() {
		t.Skip("load test skipped under -short")
	}
	fake := hardFake(t, hardKey, 10000)
	keyFile := hardKeyFile(t, filepath.Join(t.TempDir(), "key"), hardKey)
	args := []string{"--mintlify.api-url=" + fake.URL(), "--mintlify.api-key-file=" + keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.max-paths=0", "--analytics.refresh-interval=1s",
		"--mintlify.requests-per-hour=10000000"}
	for _, phase := range []struct {
		maxRequests int
		d           time.Duration
	}{{0, 10 * time.Second}, {5, 3 * time.Second}} {
		fake.SetLatency(0) // the first walks, quickly
		p := hardStart(t, bin, append(slices.Clip(args), "--web.max-requests="+strconv.Itoa(phase.maxRequests))...)
		hardWait(t, "readiness", 30*time.Second, func() bool {
			hardGet(t, hardHTTP, "http://"+p.addr+"/metrics") // scrapes start the refreshes
			code, _ := hardGet(t, hardHTTP, "http://"+p.addr+"/-/ready")
			return code == http.StatusOK
		})
		_, body := hardGet(t, hardHTTP, "http://"+p.addr+"/metrics")
		text := len(body)
		if v, _ := hardValue(t, body, "mintlify_visitors_paths_exported", "project", "docs", "window", "30d"); v != 10000 {
			t.Fatalf("30d window exports %v paths, want 10000", v)
		}
		fake.SetLatency(50 * time.Millisecond)
		before := fake.CountRequests(mintlifytest.EndpointVisitors)
		res := hardLoadPhase(t, "http://"+p.addr+"/metrics", phase.d)
		refreshRequests := fake.CountRequests(mintlifytest.EndpointVisitors) - before
		rss := p.peakRSS(t)
		t.Logf("--web.max-requests=%d: %d scrapes in %s (%d ok, %d answered 503, %d failed) of %.1f MiB of text, %.2f MiB gzip; latency p50 %s p99 %s max %s; %d upstream requests meanwhile (50 ms each); peak RSS %.0f MiB",
			phase.maxRequests, res.requests, res.elapsed.Round(100*time.Millisecond), res.ok, res.unavailable, res.failed,
			float64(text)/(1<<20), float64(res.bytes)/float64(max(1, res.ok))/(1<<20), res.p50.Round(time.Millisecond), res.p99.Round(time.Millisecond),
			res.max.Round(time.Millisecond), refreshRequests, float64(rss)/(1<<20))
		if res.ok == 0 {
			t.Fatal("no successful scrape")
		}
		if refreshRequests == 0 {
			t.Error("no refresh ran during the load")
		}
		if phase.maxRequests == 0 && res.unavailable > 0 {
			t.Errorf("%d scrapes answered 503 without a limit", res.unavailable)
		}
		if phase.maxRequests > 0 && res.unavailable == 0 {
			t.Error("50 concurrent scrapers never exceeded --web.max-requests=5")
		}
		if rss > 512<<20 {
			t.Errorf("peak RSS %d MiB, over 512 MiB", rss>>20)
		}
		_, body = hardGet(t, hardHTTP, "http://"+p.addr+"/metrics")
		if v, ok := hardValue(t, body, "mintlify_up", "project", "docs", "source", "visitors"); !ok || v != 1 {
			t.Errorf("mintlify_up is %v after the load", v)
		}
		if code := p.stop(t); code != 0 {
			t.Errorf("exit code %d after SIGTERM, want 0", code)
		}
	}
}
