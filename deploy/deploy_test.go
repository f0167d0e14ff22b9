package deploy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The exporter's contract as the deployment files must reflect it.
const (
	listenPort  = "9863"
	metricsPath = "/metrics"
	healthyPath = "/-/healthy"
	readyPath   = "/-/ready"
	jobName     = "mintlify"
	runbookBase = "https://github.com/mintlify-exporter/mintlify_exporter/blob/main/docs/runbook.md#"
)

// Paths of the files under test, relative to this package's directory.
var (
	rulesFile = filepath.Join("prometheus", "mintlify.rules.yml")
	// rulesTestFiles are the promtool unit tests of rulesFile: the event
	// stream's week-long cases step at 5m in a file of their own.
	rulesTestFiles = []string{
		filepath.Join("prometheus", "mintlify.rules.test.yml"),
		filepath.Join("prometheus", "mintlify.rules.stream.test.yml"),
	}
	scrapeFile         = filepath.Join("prometheus", "scrape.yml")
	alertmanagerFile   = filepath.Join("alertmanager", "alertmanager.yml")
	prometheusRuleFile = filepath.Join("kubernetes", "prometheusrule.yaml")
	systemdUnitFile    = filepath.Join("systemd", "mintlify_exporter.service")
	systemdEnvFile     = filepath.Join("systemd", "mintlify_exporter.default")
	composeFile        = filepath.Join("compose", "compose.yml")
	dashboardsDir      = filepath.Join("..", "dashboards")
	dockerfile         = filepath.Join("..", "Dockerfile")
	dockerignore       = filepath.Join("..", ".dockerignore")
	runbookFile        = filepath.Join("..", "docs", "runbook.md")
)

// readFile returns the contents of path or fails the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readYAML decodes the YAML file at path into v or fails the test.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	if err := yaml.Unmarshal(readFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// lookTool returns the path of the program name. When it is missing the test
// is skipped with a message naming the Debian package that provides it, or
// fails when the environment variable CI is set.
func lookTool(t *testing.T, name, debianPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found: install the Debian package %q", name, debianPackage)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// toolTimeout stops a program that hangs. It is far above what any of them
// needs (promtool test rules takes about 40 s of CPU), so that a test on a
// loaded, shared machine is not killed while it still makes progress: at a
// load average of 12 on 2 cores, both promtools' rule tests ran past 6 minutes.
const toolTimeout = 15 * time.Minute

// runTool runs a program with a time limit and returns its combined output.
func runTool(t *testing.T, dir, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// mustRunTool runs a program and fails the test when it does not succeed.
func mustRunTool(t *testing.T, dir, bin string, args ...string) string {
	t.Helper()
	out, err := runTool(t, dir, bin, args...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
	}
	return out
}
