// Package pinnedtool finds, for tests, the programs that scripts/ensure-tools.sh
// builds into .tools/bin from their pinned modules in tools/ (helm, syft,
// versitygw, promtool3).
package pinnedtool

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns the absolute path of .tools/bin/name at the module's root,
// found from the test's working directory upwards. When the program is
// missing the test fails if CI is set, and is skipped otherwise.
func Path(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the test's directory: cannot find .tools/bin/%s", name)
		}
		dir = parent
	}
	p := filepath.Join(dir, ".tools", "bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing: scripts/ensure-tools.sh builds it", p)
	}
	t.Skipf("%s is missing: run scripts/ensure-tools.sh (make tools) to build it", p)
	return ""
}
