// Package progname holds the program's name, the prefix of its errors, and
// the command a user types to run it again.
package progname

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
)

// Name is the program's name.
const Name = "mintlify_exporter"

// ErrorPrefix starts every one-line error, as kingpin's own.
const ErrorPrefix = Name + ": error: "

// Module is the Go module path, the argument of `go run` outside a clone.
const Module = "github.com/mintlify-exporter/mintlify_exporter"

// Command is what a user types to run the program again, for the example
// commands it shows: Name, or for a binary `go run` built (nothing to run by
// name) the `go run` that builds it again: `go run .` in the module's
// directory, `go run DIR` below it, else `go run MODULE@VERSION` (@latest
// when the build has no version).
func Command() string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	wd, _ := os.Getwd()
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return command(exe, wd, version, hasModule)
}

// command is Command with its inputs given: the executable, the working
// directory, the build's module version and a test for this module's go.mod.
func command(exe, wd, version string, isModuleDir func(dir string) bool) string {
	if !builtByGoRun(exe) {
		return Name
	}
	for dir := wd; wd != ""; dir = filepath.Dir(dir) {
		if isModuleDir(dir) {
			rel, _ := filepath.Rel(wd, dir) // dir is wd or above it: no error
			return "go run " + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if version == "" || version == "(devel)" {
		version = "latest"
	}
	return "go run " + Module + "@" + version
}

// builtByGoRun reports whether exe is a binary `go run` built: it lives in
// a directory named exe inside the go command's temporary go-build
// directory (GOTMPDIR or the system's temporary directory).
func builtByGoRun(exe string) bool {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) != "exe" {
		return false
	}
	for d := filepath.Dir(dir); filepath.Dir(d) != d; d = filepath.Dir(d) {
		if strings.HasPrefix(filepath.Base(d), "go-build") {
			return true
		}
	}
	return false
}

// moduleLine is the module directive of this module's go.mod.
var moduleLine = regexp.MustCompile(`(?m)^\s*module\s+"?` + regexp.QuoteMeta(Module) + `"?\s*$`)

// hasModule reports whether dir holds the go.mod of this module.
func hasModule(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && moduleLine.Match(b)
}
