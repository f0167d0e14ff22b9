package e2e

// The API key: it never shows in any output, under every fault, at debug
// level, even when the API echoes it; a rotated key file is used without
// a restart; a key file every user can read gets a warning.

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// Distinctive admin keys: a test fails if any part of them shows up.
const (
	secretKey        = "mint_SECRETSECRETSECRET0123456789abcdef"
	rotatedSecretKey = "mint_SECRETROTATED9876543210fedcba98765"
)

// secretMarks are the substrings searched for in every output.
var secretMarks = []string{secretKey, rotatedSecretKey, "SECRETSECRET", "SECRETROTATED"}

// writeKeyFile writes key to a 0600 file, replacing any earlier file by a
// rename (as a secret manager does), and returns its path.
func writeKeyFile(t *testing.T, path, key string) string {
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

// fakeWithKey is a fake API accepting key, with a project "docs" of paths
// pages and a job "job1".
func fakeWithKey(t *testing.T, key string, paths int, opts ...mintlifytest.Option) *mintlifytest.Server {
	t.Helper()
	opts = append([]mintlifytest.Option{
		mintlifytest.WithKeys(key),
		mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 5, Paths: paths, Days: 30})),
	}, opts...)
	fake := apitest.Fake(t, opts...)
	fake.AddJob("docs", mintlifytest.JobSpec{ID: "job1"})
	return fake
}

// TestKeyNeverLeaksUnderFaults runs the exporter at debug level through a
// representative set of faults and searches every output for the key.
// With -short it leaves out the two faults the client retries (500 and a
// timeout), which take seconds each.
func TestKeyNeverLeaksUnderFaults(t *testing.T) {
	t.Parallel()
	fake := fakeWithKey(t, secretKey, 300)
	keyFile := writeKeyFile(t, filepath.Join(t.TempDir(), "key"), secretKey)
	p := startExporter(t, nil, "--mintlify.api-url="+fake.URL(), "--mintlify.api-key-file="+keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--log.level=debug", "--analytics.window=1d",
		"--analytics.refresh-interval=100ms", "--mintlify.requests-per-hour=10000000", "--mintlify.timeout=200ms",
		"--collector.jobs", "--jobs.id=job1", "--jobs.poll-interval=1s")
	bodies := map[string]string{}
	scrape := func(step string) string {
		var metrics string
		for _, path := range []string{"/metrics", "/", "/-/ready", "/-/healthy"} {
			_, body := p.get(t, path, nil)
			bodies[step+" "+path] = string(body)
			if path == "/metrics" {
				metrics = string(body)
			}
		}
		return metrics
	}
	up := func() bool {
		v, ok := gaugeValue(t, scrape("poll"), "mintlify_up", "project", "docs", "source", "visitors")
		return ok && v == 1
	}
	lastSuccess := func() float64 {
		v, _ := gaugeValue(t, scrape("poll"), "mintlify_last_success_timestamp_seconds", "project", "docs", "source", "visitors", "window", "1d", "part", "pages")
		return v
	}
	notUp := func() string {
		if up() {
			return ""
		}
		return "mintlify_up is not 1"
	}
	eventually(t, 15*time.Second, "the first snapshot", notUp)

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
		{"500", mintlifytest.Fault{Status: 500}, "HTTP 500"}, // slow: the client retries
		{"malformed", mintlifytest.Fault{Body: `{"totals":`}, "malformed JSON"},
		{"timeout", mintlifytest.Fault{Delay: 3 * time.Second}, "no answer within 200ms"}, // slow: the client retries
		{"key echoed in an error", mintlifytest.Fault{Status: 400,
			Body: `{"error":"invalid key ` + secretKey + `","details":[{"message":"Authorization: Bearer ` + secretKey + `"}]}`}, "HTTP 400"},
		{"key echoed in a malformed answer", mintlifytest.Fault{
			Body: `{"id":"job1","status":"active","createdAt":"at ` + secretKey + `","totals":{"human":"x ` + secretKey + `"}}`}, "totals.human"},
	} {
		if testing.Short() && (s.name == "500" || s.name == "timeout") {
			continue // 3 s each of retries; every fault runs without -short
		}
		apply, restore := add(s.fault)
		steps = append(steps, step{s.name, apply, restore, s.logs})
	}
	steps = append([]step{{"401 (key revoked)", func() { fake.RevokeKey(secretKey) }, func() { fake.SetKeys(secretKey) }, "HTTP 401"}}, steps...)

	failures := func() int { return strings.Count(p.stderr.String(), "visitors refresh failed") }
	// One fault after the other: each changes the error, so each is
	// logged once.
	for _, s := range steps {
		before := failures()
		s.apply()
		eventually(t, 15*time.Second, s.name+" to be logged", func() string {
			scrape("poll") // scrapes start the refreshes
			if failures() > before {
				return ""
			}
			return "no new refresh failure logged"
		})
		if up() {
			t.Errorf("%s: mintlify_up is 1", s.name)
		}
		s.restore()
		if !strings.Contains(p.stderr.String(), s.logs) {
			t.Errorf("%s: the log does not say %q", s.name, s.logs)
		}
	}
	// A unit whose refresh a fault failed waits out the engine's failure
	// backoff (30 s after a first failure) before it succeeds again; which
	// unit a fault catches depends on the machine's load.
	eventually(t, 60*time.Second, "recovery", notUp)

	// Rotation: the file gets a new key and the API accepts only it. The
	// file and the fake's keys cannot change at the same instant: a request
	// sent between the two is refused, and its unit waits out the 30 s
	// failure backoff (seen in CI: the page walk's 401 at the rotation).
	rotated := time.Now()
	writeKeyFile(t, keyFile, rotatedSecretKey)
	fake.SetKeys(rotatedSecretKey)
	eventually(t, 60*time.Second, "a refresh with the rotated key", func() string {
		if up() && lastSuccess() > float64(rotated.UnixNano())/1e9 {
			return ""
		}
		return "no successful refresh since the rotation"
	})
	scrape("rotated")

	p.stop(t)
	bodies["stdout"], bodies["stderr"] = p.stdout.String(), p.stderr.String()
	if !strings.Contains(bodies["stderr"], "level=debug") {
		t.Error("nothing logged at debug level")
	}
	assertNoSecret(t, bodies, secretMarks...)
}

// TestKeyFileRotation: a rotated key file is used by the next refresh
// without a restart, and the old key is no longer sent.
func TestKeyFileRotation(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "mint_rotationKeyA0123456789abcdef", "mint_rotationKeyB0123456789abcdef"
	fake := fakeWithKey(t, keyA, 100)
	keyFile := writeKeyFile(t, filepath.Join(t.TempDir(), "key"), keyA)
	p := startExporter(t, nil, "--mintlify.api-url="+fake.URL(), "--mintlify.api-key-file="+keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.window=1d", "--analytics.refresh-interval=1s",
		"--mintlify.requests-per-hour=100000")
	lastSuccess := func() float64 {
		_, body := p.get(t, "/metrics", nil)
		v, _ := gaugeValue(t, string(body), "mintlify_last_success_timestamp_seconds", "project", "docs", "source", "visitors", "window", "1d", "part", "pages")
		return v
	}
	eventually(t, 15*time.Second, "the first snapshot with key A", func() string {
		if lastSuccess() > 0 {
			return ""
		}
		return "no successful refresh yet"
	})

	writeKeyFile(t, keyFile, keyB)
	fake.SetKeys(keyB)
	rotated := time.Now()
	n := len(fake.Requests())
	eventually(t, 15*time.Second, "a successful refresh with key B", func() string {
		if lastSuccess() > float64(rotated.UnixNano())/1e9 {
			return ""
		}
		return "no successful refresh since the rotation"
	})

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
	p.stop(t)
	if s := p.stderr.String(); strings.Contains(s, keyA) || strings.Contains(s, keyB) {
		t.Error("a key appears in the log")
	}
}

// TestKeyFileModeWarning: a key file readable by every user gets a warning,
// a private one does not.
func TestKeyFileModeWarning(t *testing.T) {
	t.Parallel()
	fake := fakeWithKey(t, secretKey, 10)
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o644, true}, {0o604, true}, {0o640, false}, {0o600, false}, {0o400, false}} {
		path := writeKeyFile(t, filepath.Join(t.TempDir(), "key"), secretKey)
		if err := os.Chmod(path, c.mode); err != nil {
			t.Fatal(err)
		}
		r := runExporter(t, nil, "agent", "get", "--job=job1", "--mintlify.api-url="+fake.URL(),
			"--mintlify.api-key-file="+path, "--mintlify.project-id=docs")
		code, stdout, stderr := r.code, r.stdout, r.stderr
		if code != 0 || !strings.Contains(stdout, `"job1"`) {
			t.Fatalf("mode %04o: exit %d\nstdout: %s\nstderr: %s", c.mode, code, stdout, stderr)
		}
		warned := strings.Contains(stderr, "level=warn") && strings.Contains(stderr, "readable by every user")
		if warned != c.warn {
			t.Errorf("mode %04o: warned %v, want %v:\n%s", c.mode, warned, c.warn, stderr)
		}
		assertNoSecret(t, map[string]string{"stdout": stdout, "stderr": stderr}, secretMarks...)
	}
}

// TestAgentCommandsNeverShowTheKey: the agent commands' outputs on errors
// never hold the key, at debug level, even when the API echoes it.
func TestAgentCommandsNeverShowTheKey(t *testing.T) {
	t.Parallel()
	fake := fakeWithKey(t, secretKey, 10)
	keyFile := writeKeyFile(t, filepath.Join(t.TempDir(), "key"), secretKey)
	base := []string{"--mintlify.api-url=" + fake.URL(), "--mintlify.api-key-file=" + keyFile,
		"--mintlify.project-id=docs", "--log.level=debug", "--mintlify.timeout=200ms"}
	get := []string{"agent", "get", "--job=job1"}
	msg := []string{"agent", "message", "--job=job1", "--prompt=update the quickstart"}
	echo := `{"error":"bad key ` + secretKey + `","details":[{"message":"Bearer ` + secretKey + `"}]}`
	for _, c := range []struct {
		name  string
		cmd   []string
		fault *mintlifytest.Fault
		setup func() func()
		code  int
	}{
		{name: "get ok", cmd: get},
		{name: "message ok", cmd: msg},
		{name: "get 401", cmd: get, setup: func() func() { fake.RevokeKey(secretKey); return func() { fake.SetKeys(secretKey) } }, code: 1},
		{name: "message 401", cmd: msg, setup: func() func() { fake.RevokeKey(secretKey); return func() { fake.SetKeys(secretKey) } }, code: 1},
		{name: "get 403", cmd: get, fault: &mintlifytest.Fault{Status: 403}, code: 1},
		{name: "get 429", cmd: get, fault: &mintlifytest.Fault{Status: 429, RetryAfter: "30"}, code: 1},
		{name: "get 404", cmd: []string{"agent", "get", "--job=nope"}, code: 1},
		{name: "get malformed", cmd: get, fault: &mintlifytest.Fault{Body: `{"id":`}, code: 1},
		{name: "get key echoed", cmd: get, fault: &mintlifytest.Fault{Status: 400, Body: echo}, code: 1},
		{name: "get key echoed in a job", cmd: get, fault: &mintlifytest.Fault{Body: `{"id":"` + secretKey + `","status":5}`}, code: 1},
		{name: "message 500", cmd: msg, fault: &mintlifytest.Fault{Status: 500, Body: echo}, code: 1},
		{name: "message timeout", cmd: msg, fault: &mintlifytest.Fault{Delay: 2 * time.Second}, code: 1},
		{name: "message key echoed", cmd: msg, fault: &mintlifytest.Fault{Status: 400, Body: echo}, code: 1},
		{name: "message 429", cmd: msg, fault: &mintlifytest.Fault{Status: 429, Body: echo}, code: 1},
		{name: "get key echoed in a non-JSON error", cmd: get, fault: &mintlifytest.Fault{Status: 404, Body: "<html>Bearer " + secretKey + "</html>"}, code: 1},
		// A value quoted in a decode error is cut at 40 bytes: the cut
		// must not leave most of the key behind.
		{name: "get key in a bad createdAt", cmd: get, fault: &mintlifytest.Fault{Body: `{"id":"job1","status":"active","createdAt":"at ` + secretKey + `"}`}, code: 1},
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
			r := runExporter(t, nil, append(slices.Clip(c.cmd), base...)...)
			code, stdout, stderr := r.code, r.stdout, r.stderr
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout, stderr)
			}
			if c.code != 0 && strings.TrimSpace(stderr) == "" {
				t.Error("an error without a message")
			}
			assertNoSecret(t, map[string]string{"stdout": stdout, "stderr": stderr}, secretMarks...)
		})
	}
}
