package deploy

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mintlify-exporter/mintlify_exporter/internal/pinnedtool"
)

// TestCrossbuild runs scripts/crossbuild.sh (what make crossbuild runs) for
// linux/amd64 with a version of its own, and checks the archive's layout,
// its SBOM, their sha256 lines, and that the binary's --version prints the
// stamped version and revision.
func TestCrossbuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the exporter: skipped with -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("runs the linux/amd64 binary")
	}
	syft := "SYFT=" + pinnedtool.Path(t, "syft")
	out := crossbuild(t, syft, "PLATFORMS=linux/amd64", "VERSION=v9.8.7-rc.1", "REVISION=0123456789abcdef", "BRANCH=release-9.8")
	// A second build of the same commit, at another time of day, in another
	// time zone and with another umask, is byte-identical, SBOM included.
	again := crossbuild(t, syft, "PLATFORMS=linux/amd64", "VERSION=v9.8.7-rc.1", "REVISION=0123456789abcdef", "BRANCH=release-9.8",
		"TZ=America/Los_Angeles", "CROSSBUILD_UMASK=0077", "USER=someone-else")
	compareBuilds(t, out, again)
	const name = "mintlify_exporter-9.8.7-rc.1.linux-amd64"
	archive := filepath.Join(out, name+".tar.gz")
	data := readFile(t, archive)
	sum := sha256.Sum256(data)
	sbom := readFile(t, archive+".spdx.json")
	sbomSum := sha256.Sum256(sbom)
	if got, want := string(readFile(t, filepath.Join(out, "sha256sums.txt"))), hex.EncodeToString(sum[:])+"  "+name+".tar.gz\n"+
		hex.EncodeToString(sbomSum[:])+"  "+name+".tar.gz.spdx.json\n"; got != want {
		t.Errorf("sha256sums.txt is %q, want %q", got, want)
	}
	checkSBOM(t, sbom, name+".tar.gz", hex.EncodeToString(sum[:]))
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
	for _, want := range []string{"version 9.8.7-rc.1", "branch: release-9.8", "revision: 0123456789abcdef", "build user:       release"} {
		if !strings.Contains(string(v), want) {
			t.Errorf("--version prints %q, want %q in it", v, want)
		}
	}
}

// checkSBOM checks the SPDX SBOM of the archive named archive (whose sha256
// is sum): named after it, created at the commit's time, and listing the
// exporter's Go modules at the versions of go.mod.
func checkSBOM(t *testing.T, raw []byte, archive, sum string) {
	t.Helper()
	var doc struct {
		SPDXVersion  string `json:"spdxVersion"`
		Name         string `json:"name"`
		Namespace    string `json:"documentNamespace"`
		CreationInfo struct {
			Created string `json:"created"`
		} `json:"creationInfo"`
		Packages []struct {
			Name    string `json:"name"`
			Version string `json:"versionInfo"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s.spdx.json: %v", archive, err)
	}
	if !strings.HasPrefix(doc.SPDXVersion, "SPDX-2.") || doc.Name != archive || !strings.HasSuffix(doc.Namespace, "/"+archive+"-"+sum) {
		t.Errorf("SBOM version %q name %q namespace %q, want SPDX 2, the archive's name, a namespace from its sha256", doc.SPDXVersion, doc.Name, doc.Namespace)
	}
	out, err := exec.Command("git", "log", "-1", "--format=%ct").Output()
	if err != nil {
		t.Fatal(err)
	}
	epoch, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if want := time.Unix(epoch, 0).UTC().Format(time.RFC3339); doc.CreationInfo.Created != want {
		t.Errorf("SBOM created %q, want the commit's time %s", doc.CreationInfo.Created, want)
	}
	mod := string(readFile(t, filepath.Join("..", "go.mod")))
	want := regexp.MustCompile(`(?m)^\s*(github\.com/prometheus/client_golang|github\.com/alecthomas/kingpin/v2) (v\S+)`).FindAllStringSubmatch(mod, -1)
	if len(want) != 2 {
		t.Fatalf("go.mod: %q, want client_golang and kingpin", want)
	}
	for _, w := range want {
		found := false
		for _, p := range doc.Packages {
			found = found || (p.Name == w[1] && p.Version == w[2])
		}
		if !found {
			t.Errorf("the SBOM lists no %s %s (of go.mod) among its %d packages", w[1], w[2], len(doc.Packages))
		}
	}
}

// crossbuild runs scripts/crossbuild.sh with env into a new directory, which
// it returns. CROSSBUILD_UMASK runs it under that umask.
func crossbuild(t *testing.T, env ...string) string {
	t.Helper()
	out := t.TempDir()
	script := filepath.Join("..", "scripts", "crossbuild.sh")
	umask := "0022"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "CROSSBUILD_UMASK="); ok {
			umask = v
		}
	}
	cmd := exec.Command("bash", "-c", "umask "+umask+" && exec "+script)
	cmd.Env = append(append(os.Environ(), env...), "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("crossbuild.sh: %v\n%s", err, b)
	}
	return out
}

// compareBuilds checks that two crossbuild outputs hold the same files,
// byte for byte.
func compareBuilds(t *testing.T, a, b string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	na, nb := names(a), names(b)
	if !slices.Equal(na, nb) || len(na) < 2 {
		t.Fatalf("the builds wrote %q and %q", na, nb)
	}
	for _, n := range na {
		if !bytes.Equal(readFile(t, filepath.Join(a, n)), readFile(t, filepath.Join(b, n))) {
			t.Errorf("%s differs between two builds of one commit", n)
		}
	}
}

// fakeGo stands in for go build in TestCrossbuildArchives: it writes a
// small file per platform where -o says, so that every platform's archive
// is made without compiling.
const fakeGo = `#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then printf 'binary for %s/%s\n' "$GOOS" "$GOARCH" > "$2"; exit 0; fi
  shift
done
exit 1
`

// TestCrossbuildArchives: every platform's archive (a .zip for Windows,
// .tar.gz otherwise) with its layout and checksum, byte-identical over two
// runs in different time zones and umasks; go build is a stand-in (the
// binary's reproducibility is TestCrossbuild's).
func TestCrossbuildArchives(t *testing.T) {
	if testing.Short() {
		t.Skip("runs crossbuild.sh and syft over six archives, twice (about 10 s): skipped with -short")
	}
	goStub := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(goStub, []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"GO=" + goStub, "PLATFORMS=linux/arm64 windows/amd64 darwin/arm64", "VERSION=v1.2.3", "REVISION=abc", "BRANCH=main",
		"SOURCE_DATE_EPOCH=1700000000", "SYFT=" + pinnedtool.Path(t, "syft")}
	out := crossbuild(t, env...)
	again := crossbuild(t, append(env, "TZ=Asia/Kolkata", "CROSSBUILD_UMASK=0002")...)
	compareBuilds(t, out, again)
	sums := string(readFile(t, filepath.Join(out, "sha256sums.txt")))
	for _, name := range []string{"mintlify_exporter-1.2.3.linux-arm64.tar.gz", "mintlify_exporter-1.2.3.darwin-arm64.tar.gz", "mintlify_exporter-1.2.3.windows-amd64.zip",
		"mintlify_exporter-1.2.3.linux-arm64.tar.gz.spdx.json", "mintlify_exporter-1.2.3.darwin-arm64.tar.gz.spdx.json", "mintlify_exporter-1.2.3.windows-amd64.zip.spdx.json"} {
		sum := sha256.Sum256(readFile(t, filepath.Join(out, name)))
		if !strings.Contains(sums, hex.EncodeToString(sum[:])+"  "+name+"\n") {
			t.Errorf("sha256sums.txt lacks %s's line:\n%s", name, sums)
		}
	}
	z, err := zip.OpenReader(filepath.Join(out, "mintlify_exporter-1.2.3.windows-amd64.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var files []string
	for _, f := range z.File {
		files = append(files, f.Name)
		if want := time.Unix(1700000000, 0).UTC(); !f.Modified.UTC().Equal(want) {
			t.Errorf("%s: time %v, want SOURCE_DATE_EPOCH %v", f.Name, f.Modified.UTC(), want)
		}
	}
	const dir = "mintlify_exporter-1.2.3.windows-amd64/"
	if want := []string{dir + "LICENSE", dir + "README.md", dir + "mintlify_exporter.exe"}; !slices.Equal(files, want) {
		t.Errorf("the Windows zip holds %q, want %q", files, want)
	}
}

// TestOneVersionString: make build and the release archives stamp one
// version string, git's tag without its v, from one definition
// (scripts/ldflags.sh).
func TestOneVersionString(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command(makeBin, "-C", "..", "-s", "-n", "build", "VERSION=v9.8.7", "REVISION=abc", "BRANCH=main").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n build: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "version.Version=9.8.7 ") {
		t.Errorf("make build stamps another version than 9.8.7 for v9.8.7:\n%s", out)
	}
	cmd := exec.Command(filepath.Join("..", "scripts", "ldflags.sh"))
	cmd.Env = append(os.Environ(), "VERSION=v9.8.7", "REVISION=abc", "BRANCH=main")
	script, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "-ldflags '"+strings.TrimSpace(string(script))+"'") {
		t.Errorf("make build's ldflags are not scripts/ldflags.sh's %s:\n%s", script, out)
	}
}

// workflowBuild matches a tool the release workflow builds: the tools/
// module and the package.
var workflowBuild = regexp.MustCompile(`cd tools/([a-z0-9]+) && go build -o \S+ (\S+)\)`)

// TestReleaseWorkflowTools: the workflow parses, and every tool it builds
// is pinned in its tools/ module (which requires the package's module).
func TestReleaseWorkflowTools(t *testing.T) {
	wf := readFile(t, filepath.Join("..", ".github", "workflows", "ci.yml"))
	var parsed struct {
		Jobs map[string]struct {
			Steps []map[string]any `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(wf, &parsed); err != nil || len(parsed.Jobs["release"].Steps) == 0 {
		t.Fatalf("ci.yml: %v, or no release job", err)
	}
	builds := workflowBuild.FindAllSubmatch(wf, -1)
	if len(builds) < 2 {
		t.Fatalf("the release job builds %d tools, want syft and cosign", len(builds))
	}
	for _, b := range builds {
		dir, pkg := string(b[1]), string(b[2])
		mod := string(readFile(t, filepath.Join("..", "tools", dir, "go.mod")))
		readFile(t, filepath.Join("..", "tools", dir, "go.sum"))
		found := false
		for _, line := range strings.Split(mod, "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && (pkg == f[0] || strings.HasPrefix(pkg, f[0]+"/")) {
				found = true
			}
		}
		if !found {
			t.Errorf("tools/%s/go.mod does not require the module of %s", dir, pkg)
		}
	}
	// The SBOMs are make crossbuild's, with the syft the workflow built;
	// it signs and publishes them.
	for _, step := range []string{"sign-blob", `make crossbuild VERSION=${GITHUB_REF_NAME} SYFT="$RUNNER_TEMP/syft"`, ".tarballs/*.spdx.json", "id-token: write", "*.zip"} {
		if !bytes.Contains(wf, []byte(step)) {
			t.Errorf("the release workflow lacks %q", step)
		}
	}
	if !bytes.Contains(readFile(t, filepath.Join("..", "scripts", "crossbuild.sh")), []byte(`-o "spdx-json=`)) {
		t.Error("scripts/crossbuild.sh writes no SPDX JSON SBOM")
	}
}
