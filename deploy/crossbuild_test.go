package deploy

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCrossbuild runs scripts/crossbuild.sh (what make crossbuild runs) for
// linux/amd64 with a version of its own, and checks the archive's layout,
// its sha256 line, and that the binary's --version prints the stamped
// version and revision.
func TestCrossbuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the exporter: skipped with -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("runs the linux/amd64 binary")
	}
	out := t.TempDir()
	cmd := exec.Command(filepath.Join("..", "scripts", "crossbuild.sh"))
	cmd.Env = append(os.Environ(), "PLATFORMS=linux/amd64", "VERSION=v9.8.7-rc.1", "REVISION=0123456789abcdef", "BRANCH=release-9.8", "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("crossbuild.sh: %v\n%s", err, b)
	}
	const name = "mintlify_exporter-9.8.7-rc.1.linux-amd64"
	archive := filepath.Join(out, name+".tar.gz")
	data := readFile(t, archive)
	sum := sha256.Sum256(data)
	if got, want := string(readFile(t, filepath.Join(out, "sha256sums.txt"))), hex.EncodeToString(sum[:])+"  "+name+".tar.gz\n"; got != want {
		t.Errorf("sha256sums.txt is %q, want %q", got, want)
	}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	bin := filepath.Join(t.TempDir(), "mintlify_exporter")
	var files []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, h.Name)
		if h.Name == name+"/mintlify_exporter" {
			w, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(w, tr); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
	}
	for _, want := range []string{name + "/mintlify_exporter", name + "/LICENSE", name + "/README.md"} {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Errorf("the archive lacks %s: %q", want, files)
		}
	}
	v, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, v)
	}
	for _, want := range []string{"version 9.8.7-rc.1", "branch: release-9.8", "revision: 0123456789abcdef"} {
		if !strings.Contains(string(v), want) {
			t.Errorf("--version prints %q, want %q in it", v, want)
		}
	}
}
