package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dockerInstruction is one Dockerfile instruction, continuation lines
// joined.
type dockerInstruction struct {
	Cmd  string
	Args string
}

// dockerInstructions parses a Dockerfile into its instructions.
func dockerInstructions(t *testing.T, b []byte) []dockerInstruction {
	t.Helper()
	var out []dockerInstruction
	pending := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending += cont + " "
			continue
		}
		line, pending = pending+line, ""
		cmd, args, _ := strings.Cut(line, " ")
		out = append(out, dockerInstruction{strings.ToUpper(cmd), strings.Join(strings.Fields(args), " ")})
	}
	if pending != "" {
		t.Fatal("Dockerfile ends with a continuation line")
	}
	return out
}

// dockerCopy splits the arguments of COPY into its --from stage (or ""),
// sources and destination.
func dockerCopy(args string) (from string, srcs []string, dst string) {
	fields := strings.Fields(args)
	var rest []string
	for _, f := range fields {
		if v, ok := strings.CutPrefix(f, "--from="); ok {
			from = v
			continue
		}
		if strings.HasPrefix(f, "--") {
			continue
		}
		rest = append(rest, f)
	}
	if len(rest) == 0 {
		return from, nil, ""
	}
	return from, rest[:len(rest)-1], rest[len(rest)-1]
}

// dockerignorePatterns returns the patterns of .dockerignore.
func dockerignorePatterns(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(string(readFile(t, dockerignore)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: exceptions (%s) are not supported by this test", line)
		}
		out = append(out, strings.TrimPrefix(filepath.Clean(line), "/"))
	}
	return out
}

// dockerignored reports whether the path (relative to the repository root,
// slash-separated) is left out of the build context: when a pattern matches
// it or one of its parent directories.
func dockerignored(patterns []string, rel string) bool {
	for p := rel; p != "." && p != ""; p = filepath.Dir(p) {
		for _, pat := range patterns {
			if ok, _ := filepath.Match(pat, p); ok {
				return true
			}
		}
	}
	return false
}

var goBuildOutput = regexp.MustCompile(`go build [^&;]*?-o (\S+)`)

func TestDockerfile(t *testing.T) {
	ins := dockerInstructions(t, readFile(t, dockerfile))
	var froms []string
	var runs, built []string
	copied := map[string]string{} // destination -> source, for COPY --from
	var entrypoint []string
	var expose, user string
	labels := map[string]bool{}
	var args []string
	ignored := dockerignorePatterns(t)
	for _, in := range ins {
		switch in.Cmd {
		case "FROM":
			froms = append(froms, in.Args)
		case "RUN":
			runs = append(runs, in.Args)
			for _, m := range goBuildOutput.FindAllStringSubmatch(in.Args, -1) {
				built = append(built, m[1])
			}
		case "COPY", "ADD":
			from, srcs, dst := dockerCopy(in.Args)
			if from != "" {
				for _, s := range srcs {
					copied[dst] = s
				}
				continue
			}
			for _, s := range srcs {
				matches, err := filepath.Glob(filepath.Join("..", s))
				if err != nil || len(matches) == 0 {
					t.Errorf("Dockerfile: %s %s: %s does not exist", in.Cmd, in.Args, s)
				}
				if s != "." && dockerignored(ignored, filepath.Clean(s)) {
					t.Errorf("Dockerfile: %s is excluded by .dockerignore", s)
				}
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.Args), &entrypoint); err != nil {
				t.Errorf("Dockerfile: ENTRYPOINT %s is not in exec (JSON) form", in.Args)
			}
		case "EXPOSE":
			expose = in.Args
		case "LABEL":
			for _, m := range ociLabel.FindAllStringSubmatch(in.Args, -1) {
				labels[m[1]] = true
			}
		case "ARG":
			args = append(args, strings.Fields(in.Args)...)
		case "USER":
			user = in.Args
		}
	}
	for _, f := range froms {
		image, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(f, "--platform=$BUILDPLATFORM ")), " ")
		if image != "scratch" && !pinnedImage.MatchString(image) {
			t.Errorf("Dockerfile: FROM %s is not pinned by digest (NAME:TAG@sha256:…)", f)
		}
	}
	if len(froms) > 0 {
		froms[0] = strings.TrimPrefix(froms[0], "--platform=$BUILDPLATFORM ")
		if !strings.HasPrefix(ins[indexOf(ins, "FROM")].Args, "--platform=$BUILDPLATFORM ") {
			t.Error("Dockerfile: the build stage does not run on $BUILDPLATFORM: buildx would emulate it for every platform")
		}
	}
	for _, a := range []string{"TARGETOS", "TARGETARCH"} {
		if !slices.Contains(args, a) || !strings.Contains(strings.Join(runs, "\n"), "$"+a) {
			t.Errorf("Dockerfile: the build does not cross-compile for $%s", a)
		}
	}
	for _, l := range []string{"title", "description", "source", "licenses", "version", "revision", "created"} {
		if !labels["org.opencontainers.image."+l] {
			t.Errorf("Dockerfile: no OCI label org.opencontainers.image.%s", l)
		}
	}
	if len(froms) < 2 || !strings.HasPrefix(froms[0], "golang:1.26") {
		t.Errorf("Dockerfile: stages %q, want a golang:1.26 build stage and a final one", froms)
	} else if final := froms[len(froms)-1]; final != "scratch" && !strings.HasPrefix(final, "gcr.io/distroless/static") {
		t.Errorf("Dockerfile: final image %s, want distroless static or scratch", final)
	}
	build := strings.Join(runs, "\n")
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X github.com/prometheus/common/version.Version=", "-X github.com/prometheus/common/version.Revision="} {
		if !strings.Contains(build, want) {
			t.Errorf("Dockerfile: the build does not use %s", want)
		}
	}
	if len(built) != 1 {
		t.Fatalf("Dockerfile: go build outputs %q, want one", built)
	}
	if len(entrypoint) == 0 || copied[entrypoint[0]] != built[0] {
		t.Errorf("Dockerfile: ENTRYPOINT %q does not run the binary built at %s", entrypoint, built[0])
	}
	for dst, src := range copied {
		if src != built[0] && !strings.Contains(build, src) {
			t.Errorf("Dockerfile: COPY --from of %s to %s: no build step makes it", src, dst)
		}
	}
	if expose != listenPort {
		t.Errorf("Dockerfile: EXPOSE %q, want %s", expose, listenPort)
	}
	if user == "" || user == "root" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root:") {
		t.Errorf("Dockerfile: USER %q, want a non-root user", user)
	}
}

// pinnedImage is an image reference pinned by the digest of its index.
var pinnedImage = regexp.MustCompile(`^[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$`)

// ociLabel finds the keys of a LABEL instruction.
var ociLabel = regexp.MustCompile(`(org\.opencontainers\.image\.[a-z]+)=`)

// indexOf returns the index of the first instruction cmd.
func indexOf(ins []dockerInstruction, cmd string) int {
	for i, in := range ins {
		if in.Cmd == cmd {
			return i
		}
	}
	return 0
}

// TestDockerignoreKeepsSources checks that .dockerignore leaves every Go
// source the binary needs in the build context.
func TestDockerignoreKeepsSources(t *testing.T) {
	ignored := dockerignorePatterns(t)
	for _, f := range []string{"go.mod", "go.sum"} {
		if dockerignored(ignored, f) {
			t.Errorf(".dockerignore excludes %s", f)
		}
	}
	module := "github.com/mintlify-exporter/mintlify_exporter/"
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if strings.HasPrefix(rel, "deploy/") {
			return nil // tests only, left out on purpose
		}
		if dockerignored(ignored, rel) {
			t.Errorf(".dockerignore excludes the Go source %s", rel)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if slices.ContainsFunc([]string{module + "deploy\"", module + "dashboards"}, func(s string) bool { return bytes.Contains(src, []byte(s)) }) {
			t.Errorf("%s imports a package that .dockerignore leaves out", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
