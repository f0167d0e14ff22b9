package deploy

import (
	"io/fs"
	"os"
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

// kingpinFlag matches a flag definition in the exporter's source.
var kingpinFlag = regexp.MustCompile(`\.Flag\(\s*"([^"]+)"`)

// exporterFlag matches the exporter's flags as written in deployment files
// and dashboards; other programs' flags (--config.file, ...) do not match.
var exporterFlag = regexp.MustCompile(`--((?:web|mintlify|visitors|collector|jobs|cache|log)\.[a-z0-9.-]*[a-z0-9]|demo)\b`)

// TestDeployFilesUseExistingFlags checks that every exporter flag the
// deployment files, rules and dashboards mention is one the exporter has.
func TestDeployFilesUseExistingFlags(t *testing.T) {
	src := exporterSource(t)
	defined := []string{}
	for _, m := range kingpinFlag.FindAllStringSubmatch(src, -1) {
		defined = append(defined, m[1])
	}
	if strings.Contains(src, "kingpinflag.AddFlags(") {
		defined = append(defined, "web.listen-address", "web.config.file", "web.systemd-socket")
	}
	files := []string{
		filepath.Join(kubernetesDir, "deployment.yaml"),
		filepath.Join(kubernetesDir, "secret.example.yaml"),
		composeFile, systemdUnitFile, systemdEnvFile, scrapeFile, rulesFile, dockerfile,
	}
	dash, _ := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	files = append(files, dash...)
	n := 0
	for _, f := range files {
		for _, m := range exporterFlag.FindAllStringSubmatch(string(readFile(t, f)), -1) {
			n++
			if !slices.Contains(defined, m[1]) {
				t.Errorf("%s mentions --%s, which the exporter does not define", f, m[1])
			}
		}
	}
	if n == 0 {
		t.Error("no exporter flag found in the deployment files")
	}
}
