package progname

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommand(t *testing.T) {
	module := filepath.FromSlash("/home/u/src/mintlify_exporter")
	isModule := func(dir string) bool { return dir == module }
	goRun := filepath.FromSlash("/tmp/go-build123456/b001/exe/mintlify_exporter")
	for _, c := range []struct {
		name, exe, wd, version, want string
	}{
		{"installed", filepath.FromSlash("/usr/local/bin/mintlify_exporter"), module, "", "mintlify_exporter"},
		{"built in the clone", filepath.Join(module, "mintlify_exporter"), module, "(devel)", "mintlify_exporter"},
		{"not go-build's exe directory", filepath.FromSlash("/tmp/exe/mintlify_exporter"), module, "", "mintlify_exporter"},
		{"go run . in the clone", goRun, module, "(devel)", "go run ."},
		{"go run below the clone", goRun, filepath.Join(module, "internal", "cli"), "(devel)", "go run ../.."},
		{"go run of a version elsewhere", goRun, filepath.FromSlash("/home/u"), "v0.3.0", "go run " + Module + "@v0.3.0"},
		{"go run elsewhere without a version", goRun, filepath.FromSlash("/home/u"), "(devel)", "go run " + Module + "@latest"},
		{"go run with no working directory", goRun, "", "", "go run " + Module + "@latest"},
	} {
		if got := command(c.exe, c.wd, c.version, isModule); got != c.want {
			t.Errorf("%s: command(%q, %q, %q) = %q, want %q", c.name, c.exe, c.wd, c.version, got, c.want)
		}
	}
}

func TestHasModule(t *testing.T) {
	if !hasModule(filepath.Join("..", "..")) {
		t.Error("the repository's root does not hold this module's go.mod")
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if hasModule(other) || hasModule(t.TempDir()) {
		t.Error("another module's go.mod, or none, counts as this module's")
	}
}
