package cli

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/version"
)

// A valid-looking admin key that no server accepts; tests only check that
// it never shows.
const testKey = "mint_TESTKEYdoNotPrint0123456789abcdef"

// runOutput is what one call of runContext produced.
type runOutput struct {
	code           int
	stdout, stderr string
}

// runMain calls runContext with args and the given environment (unset variables
// are set to ""), never reading from stdin.
func runMain(t *testing.T, env map[string]string, args ...string) runOutput {
	t.Helper()
	for _, k := range []string{"MINTLIFY_API_KEY", "MINTLIFY_PROJECT_ID"} {
		t.Setenv(k, env[k])
	}
	var stdout, stderr bytes.Buffer
	code := runContext(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return runOutput{code, stdout.String(), stderr.String()}
}

// assertNoSecret fails when any secret appears in the output.
func assertNoSecret(t *testing.T, o runOutput, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if strings.Contains(o.stdout, s) || strings.Contains(o.stderr, s) {
			t.Errorf("the secret %.9s… appears in the output:\nstdout: %s\nstderr: %s", s, o.stdout, o.stderr)
		}
	}
}

// errorLines returns the lines of stderr that report an error.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "level=error") || strings.Contains(l, exporterName+": error:") {
			out = append(out, l)
		}
	}
	return out
}

func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const assistantKey = "mint_dsc_ASSISTANTsecret0123456789"
	const indexKey = "mint_us_INDEXsecret0123456789"
	const foreignKey = "sk_live_FOREIGNsecret0123456789"
	assistantFile := writeFile("assistant.key", assistantKey+"\n")
	garbageFile := writeFile("garbage.key", "hunter2-GARBAGEsecret\n")
	emptyFile := writeFile("empty.key", "\n")
	missingFile := filepath.Join(dir, "missing.key")
	keyDir := filepath.Join(dir, "keydir")
	if err := os.Mkdir(keyDir, 0o700); err != nil {
		t.Fatal(err)
	}

	project := map[string]string{"MINTLIFY_API_KEY": testKey, "MINTLIFY_PROJECT_ID": "docs"}
	withKey := func(k string) map[string]string {
		return map[string]string{"MINTLIFY_API_KEY": k, "MINTLIFY_PROJECT_ID": "docs"}
	}
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		want    []string // substrings of the error line
		secrets []string
	}{
		{"no project id", map[string]string{"MINTLIFY_API_KEY": testKey}, nil,
			[]string{"no project", "--mintlify.project-id"}, []string{testKey}},
		{"no key", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, nil,
			[]string{"no API key", "MINTLIFY_API_KEY"}, nil},
		{"blank key", withKey("   "), nil,
			[]string{"no API key"}, nil},
		{"assistant key", withKey(assistantKey), nil,
			[]string{"MINTLIFY_API_KEY", "assistant API key", "admin API key", "API keys page"}, []string{assistantKey, "ASSISTANTsecret"}},
		{"index key", withKey(indexKey), nil,
			[]string{"MINTLIFY_API_KEY", "index API key", "admin API key", "API keys page"}, []string{indexKey, "INDEXsecret"}},
		{"key without mint_", withKey(foreignKey), nil,
			[]string{"MINTLIFY_API_KEY", "not a Mintlify admin API key", "mint_", "API keys page"}, []string{foreignKey, "FOREIGNsecret"}},
		{"short key", withKey("abc"), nil,
			[]string{"MINTLIFY_API_KEY", "not a Mintlify admin API key", "API keys page of the Mintlify dashboard"}, []string{"abc"}},
		{"key file missing", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + missingFile},
			[]string{missingFile}, nil},
		{"key file is a directory", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + keyDir},
			[]string{keyDir, "not a regular file"}, nil},
		{"key file empty", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + emptyFile},
			[]string{emptyFile, "empty"}, nil},
		{"key file with an assistant key", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + assistantFile},
			[]string{assistantFile, "assistant API key"}, []string{assistantKey, "ASSISTANTsecret"}},
		{"key file with garbage", map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, []string{"--mintlify.api-key-file=" + garbageFile},
			[]string{garbageFile, "not a Mintlify admin API key"}, []string{"hunter2", "GARBAGEsecret"}},
		{"key file wins over a good env key", withKey(testKey), []string{"--mintlify.api-key-file=" + garbageFile},
			[]string{garbageFile}, []string{testKey, "GARBAGEsecret"}},
		{"bad window", project, []string{"--visitors.window=0d"},
			[]string{"--visitors.window", "0d", "1d to 366d"}, []string{testKey}},
		{"bad window unit", project, []string{"--visitors.window=1w"},
			[]string{"--visitors.window", "1w"}, []string{testKey}},
		{"bad include regexp", project, []string{"--visitors.path-include=(docs"},
			[]string{"--visitors.path-include", "missing closing )"}, []string{testKey}},
		{"bad exclude regexp", project, []string{"--visitors.path-exclude=[a-"},
			[]string{"--visitors.path-exclude", "missing closing ]"}, []string{testKey}},
		{"page size 0", project, []string{"--visitors.page-size=0"},
			[]string{"--visitors.page-size", "1 to 250", "not 0"}, []string{testKey}},
		{"page size 251", project, []string{"--visitors.page-size=251"},
			[]string{"--visitors.page-size", "1 to 250", "not 251"}, []string{testKey}},
		{"negative max paths", project, []string{"--visitors.max-paths=-1"},
			[]string{"--visitors.max-paths"}, []string{testKey}},
		{"zero budget", project, []string{"--mintlify.requests-per-hour=0"},
			[]string{"--mintlify.requests-per-hour"}, []string{testKey}},
		{"unknown flag", project, []string{"--mintlify.no-such-flag"},
			[]string{"unknown flag --mintlify.no-such-flag", "--mintlify.no-such-flag", "--help"}, []string{testKey}},
		{"bad log level", project, []string{"--log.level=loud"},
			[]string{"loud", "debug,info,warn,error", "--help"}, []string{testKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runMain(t, tt.env, tt.args...)
			if o.code != 1 {
				t.Errorf("exit code %d, want 1", o.code)
			}
			lines := errorLines(o.stderr)
			if len(lines) != 1 {
				t.Fatalf("%d error lines, want exactly 1; stderr:\n%s", len(lines), o.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("error line does not mention %q:\n%s", w, lines[0])
				}
			}
			if strings.Contains(o.stderr, "goroutine ") || strings.Contains(o.stderr, "panic") {
				t.Errorf("stderr holds a panic:\n%s", o.stderr)
			}
			if strings.Contains(o.stdout, "level=") {
				t.Errorf("logs went to stdout:\n%s", o.stdout)
			}
			assertNoSecret(t, o, append(tt.secrets, testKey)...)
		})
	}
}

func TestKeyFileContentNeverShown(t *testing.T) {
	// The file holds what might be a real secret on its second line: no
	// error may echo any of it.
	p := filepath.Join(t.TempDir(), "key")
	const content = "mint_first line\nmint_SECONDLINEsecret\n"
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	o := runMain(t, map[string]string{"MINTLIFY_PROJECT_ID": "docs"}, "--mintlify.api-key-file="+p)
	if o.code != 1 {
		t.Errorf("exit code %d, want 1", o.code)
	}
	if lines := errorLines(o.stderr); len(lines) != 1 || !strings.Contains(lines[0], p) {
		t.Errorf("want one error line naming %s; stderr:\n%s", p, o.stderr)
	}
	assertNoSecret(t, o, "SECONDLINEsecret", "first line")
}

func TestHelpAndVersion(t *testing.T) {
	env := map[string]string{"MINTLIFY_API_KEY": testKey}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"help", []string{"--help"}, []string{"usage: " + exporterName, "--mintlify.project-id", "--analytics.window", "collector.visitors", "--cache.file"}},
		{"short help", []string{"-h"}, []string{"usage: " + exporterName}},
		{"version", []string{"--version"}, []string{exporterName + ", version", "go version"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := runMain(t, env, tt.args...)
			if o.code != 0 {
				t.Errorf("exit code %d, want 0; stderr:\n%s", o.code, o.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(o.stdout, w) {
					t.Errorf("stdout does not contain %q:\n%s", w, o.stdout)
				}
			}
			if lines := errorLines(o.stderr); len(lines) != 0 {
				t.Errorf("errors on stderr: %q", lines)
			}
			if strings.Contains(o.stdout, "--visitors.") {
				t.Errorf("the deprecated --visitors.* flags are shown:\n%s", o.stdout)
			}
			if strings.Contains(o.stderr, "starting "+exporterName) {
				t.Errorf("%s started the exporter:\n%s", tt.args[0], o.stderr)
			}
			assertNoSecret(t, o, testKey)
		})
	}
}

// TestHelpMan checks the man page's header: kingpin writes --help-man to
// the process's standard output and puts the version text into .TH, which
// must be one line.
func TestHelpMan(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	o := runMain(t, nil, "--help-man")
	os.Stdout = saved
	w.Close()
	page, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if o.code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", o.code, o.stderr)
	}
	first, rest, _ := strings.Cut(string(page), "\n")
	if want := ".TH " + exporterName + " 1 " + strconv.Quote(version.Version) + ` ""`; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
	if !strings.HasPrefix(rest, ".SH \"NAME\"") || !strings.Contains(rest, "--mintlify.project-id") {
		t.Errorf("not a man page after the header:\n%.300s", rest)
	}
}

// TestOnlyTheRootImportsCLI: the command line assembles the other packages
// and none of them imports it back; the root main is its only importer.
func TestOnlyTheRootImportsCLI(t *testing.T) {
	const cliPath = `"github.com/mintlify-exporter/mintlify_exporter/internal/cli"`
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || filepath.Dir(p) == root {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == cliPath {
				t.Errorf("%s imports internal/cli; only the root main may", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
