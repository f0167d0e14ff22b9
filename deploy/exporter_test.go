package deploy

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var packageMain = regexp.MustCompile(`(?m)^package main$`)

// exporterSource returns the exporter's non-test Go sources, concatenated,
// or skips the test while there is no main package yet.
func exporterSource(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	hasMain := false
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel("..", path); rel == "deploy" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if filepath.Dir(path) == ".." && packageMain.Match(src) {
			hasMain = true
		}
		b.Write(src)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !hasMain {
		t.Skip("no exporter main package yet")
	}
	return b.String()
}

// TestExporterPortAndPaths checks the exporter's own defaults against the
// port and paths every deployment file uses.
func TestExporterPortAndPaths(t *testing.T) {
	src := exporterSource(t)
	for _, lit := range []string{`":` + listenPort + `"`, `"` + metricsPath + `"`, `"` + healthyPath + `"`, `"` + readyPath + `"`} {
		if !strings.Contains(src, lit) {
			t.Errorf("the exporter's source has no %s: the deployment files assume it", lit)
		}
	}
}

// helpFlag matches a flag in the exporter's --help output: --name=... or,
// for a boolean, --[no-]name.
var helpFlag = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9.-]*[a-z0-9])\b`)

// exporterFlagPrefixes are the name spaces of the exporter's own flags.
const exporterFlagPrefixes = `web|mintlify|analytics|visitors|collector|searches|conversations|jobs|cache|log`

// exporterFlag matches the exporter's flags as written in deployment files
// and dashboards; other programs' flags (--config.file, ...) do not match.
var exporterFlag = regexp.MustCompile(`--((?:` + exporterFlagPrefixes + `)\.[a-z0-9.-]*[a-z0-9]|demo)\b`)

// exporterFlags builds the exporter and returns the flags its --help
// lists. Some flags are defined in loops (one --collector.NAME per source),
// so the binary, not the source, is asked. Hidden flags (the deprecated
// --visitors.* aliases) are not listed: deployment files must not use them.
func exporterFlags(t *testing.T) []string {
	t.Helper()
	exporterSource(t) // skips while there is no main package
	if testing.Short() {
		t.Skip("builds the exporter binary: skipped under -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command in PATH to build the exporter: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mintlify_exporter")
	mustRunTool(t, "..", goTool, "build", "-o", bin, ".")
	help := mustRunTool(t, ".", bin, "--help")
	var flags []string
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		flags = append(flags, m[1])
	}
	if !slices.Contains(flags, "web.listen-address") || !slices.Contains(flags, "mintlify.project-id") {
		t.Fatalf("no --web.listen-address or --mintlify.project-id in the exporter's --help; the parser needs an update:\n%s", help)
	}
	return flags
}

// TestDeployFilesUseExistingFlags checks that every exporter flag the
// deployment files, rules and dashboards mention is one the exporter has.
func TestDeployFilesUseExistingFlags(t *testing.T) {
	defined := exporterFlags(t)
	files := []string{
		filepath.Join(kubernetesDir, "deployment.yaml"),
		filepath.Join(kubernetesDir, "secret.example.yaml"),
		composeFile, systemdUnitFile, systemdEnvFile, scrapeFile, rulesFile, dockerfile,
		filepath.Join(chartDir, "values.yaml"), chartFullValue, filepath.Join(chartDir, "templates", "deployment.yaml"),
	}
	dash, _ := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	files = append(files, dash...)
	n := 0
	for _, f := range files {
		for _, m := range exporterFlag.FindAllStringSubmatch(string(readFile(t, f)), -1) {
			n++
			if !slices.Contains(defined, m[1]) {
				t.Errorf("%s mentions --%s, which the exporter's --help does not list (no such flag, or a hidden deprecated one)", f, m[1])
			}
		}
	}
	if n == 0 {
		t.Error("no exporter flag found in the deployment files")
	}
}
