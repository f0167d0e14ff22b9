package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/exporter-toolkit/web"
	"gopkg.in/yaml.v3"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

// checkTelemetryPath accepts an absolute, clean URL path that no other
// endpoint of the exporter uses.
func checkTelemetryPath(p string) error {
	if err := exporter.CheckTelemetryPath(p); err != nil {
		return err
	}
	return nil
}

// checkListenAddresses validates --web.listen-address before anything
// listens: HOST:PORT with a numeric port (vsock:// addresses are left to
// exporter-toolkit).
func checkListenAddresses(w *web.FlagConfig) error {
	if w.WebSystemdSocket != nil && *w.WebSystemdSocket {
		return nil
	}
	if w.WebListenAddresses == nil || len(*w.WebListenAddresses) == 0 {
		return errors.New("--web.listen-address: no address given")
	}
	for _, a := range *w.WebListenAddresses {
		if strings.HasPrefix(a, "vsock://") {
			continue
		}
		if a == "" {
			return errors.New("--web.listen-address is empty: give HOST:PORT or :PORT, such as :9863")
		}
		_, port, err := net.SplitHostPort(a)
		if err != nil {
			return fmt.Errorf("--web.listen-address=%q: want HOST:PORT or :PORT, such as :9863", a)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("--web.listen-address=%q: the port must be a number from 0 to 65535", a)
		}
	}
	return nil
}

// listen opens the sockets of --web.listen-address, naming the flag when
// one cannot be opened. It returns nil, nil when exporter-toolkit must
// listen itself (systemd socket activation, vsock).
func listen(w *web.FlagConfig) ([]net.Listener, error) {
	if w.WebSystemdSocket != nil && *w.WebSystemdSocket {
		return nil, nil
	}
	for _, a := range *w.WebListenAddresses {
		if strings.HasPrefix(a, "vsock://") {
			return nil, nil
		}
	}
	var ls []net.Listener
	for _, a := range *w.WebListenAddresses {
		l, err := net.Listen("tcp", a)
		if err != nil {
			for _, l := range ls {
				l.Close()
			}
			switch {
			case errors.Is(err, syscall.EADDRINUSE):
				return nil, fmt.Errorf("--web.listen-address=%s: the address is already in use (another exporter?); stop what listens there or choose another port", a)
			case errors.Is(err, syscall.EACCES):
				return nil, fmt.Errorf("--web.listen-address=%s: permission denied; ports below 1024 need root or CAP_NET_BIND_SERVICE, choose a higher port", a)
			case errors.Is(err, syscall.EADDRNOTAVAIL):
				return nil, fmt.Errorf("--web.listen-address=%s: no interface of this machine has that address", a)
			}
			return nil, fmt.Errorf("--web.listen-address=%s: %v", a, err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// checkFiles validates the file flags before start: the web configuration
// is read and checked; the cache file's directory must exist and be
// writable; no two flags may name the same file (the cache would overwrite
// the key).
func checkFiles(f *flags) error {
	if f.web.WebConfigFile != nil && *f.web.WebConfigFile != "" {
		if err := web.Validate(*f.web.WebConfigFile); err != nil {
			return fmt.Errorf("--web.config.file=%s: %v", *f.web.WebConfigFile, oneLine(err))
		}
	}
	if f.cacheFile != "" {
		if err := checkCacheFile(f.cacheFile); err != nil {
			return fmt.Errorf("--cache.file=%s: %v", f.cacheFile, err)
		}
	}
	files := []struct{ flag, path string }{
		{"--cache.file", f.cacheFile},
		{"--mintlify.api-key-file", f.apiKeyFile},
		{"--jobs.file", f.jobsFile},
		{"--remediation.config", f.remediation},
		{"--remediation.token-file", f.remediationToken},
	}
	if f.web.WebConfigFile != nil {
		files = append(files, struct{ flag, path string }{"--web.config.file", *f.web.WebConfigFile})
	}
	for i, a := range files {
		for _, b := range files[i+1:] {
			if a.path != "" && b.path != "" && sameFile(a.path, b.path) {
				return fmt.Errorf("%s and %s name the same file %s; give each its own file", a.flag, b.flag, a.path)
			}
		}
	}
	return nil
}

// checkCacheFile checks that the cache file can be written: its directory
// exists and the exporter can create files in it, and the path is not a
// directory.
func checkCacheFile(p string) error {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return errors.New("is a directory; give a file name in it, such as " + filepath.Join(p, "mintlify_exporter.cache"))
	} else if err == nil && !st.Mode().IsRegular() {
		return errors.New("is not a regular file (a FIFO or device); give the name of a file the exporter may replace")
	}
	dir := filepath.Dir(p)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the directory %s does not exist; create it (mkdir -p %s) or choose another path", dir, dir)
	case err != nil:
		return fmt.Errorf("cannot use the directory %s: %v", dir, unwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	if strings.ContainsRune(p, 0) {
		return errors.New("the path holds a NUL byte")
	}
	// The probe has the name the cache's temporary file will have, so a
	// name too long for the file system fails here.
	probe, err := os.CreateTemp(dir, filepath.Base(p)+".probe-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s (%v); the exporter runs as uid %d: give it write access to the directory or choose another path", dir, unwrapPath(err), os.Getuid())
	}
	name := probe.Name()
	probe.Close()
	os.Remove(name)
	return nil
}

// sameFile reports whether two paths name one file: the same file on disk,
// or the same cleaned absolute path.
func sameFile(a, b string) bool {
	if sa, err := os.Stat(a); err == nil {
		if sb, err := os.Stat(b); err == nil {
			return os.SameFile(sa, sb)
		}
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && path.Clean(aa) == path.Clean(bb)
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// oneLine joins the lines of an error message.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// looksLikeKey reports whether s (a job id) is an admin API key instead.
func looksLikeKey(s string) bool {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 { // PROJECT/ID
		s = s[i+1:]
	}
	return strings.HasPrefix(s, "mint_") && client.CheckKey(s) == nil
}

// checkJobsFile refuses a jobs file that holds an API key (the key file
// given by mistake): its lines become job_id labels. The job watcher
// reads it again and reports syntax errors.
func checkJobsFile(p string) error {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("does not exist; create it, with one job id a line")
	}
	if err != nil {
		return unwrapPath(err)
	}
	if st.IsDir() {
		return errors.New("is a directory; give a file of job ids, one a line")
	}
	if !st.Mode().IsRegular() {
		return errors.New("is not a regular file (a FIFO or device would hang the exporter); give a file of job ids, one a line")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return unwrapPath(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if looksLikeKey(line) {
			return fmt.Errorf("line %d looks like an admin API key (mint_...), not a job id: is this the key file?", i+1)
		}
	}
	return nil
}

// remediationConfig checks the remediation flags and returns the webhook's
// configuration, nil when --remediation.config is not set. The rules file
// is parsed here, so a mistake in it stops the start.
func remediationConfig(f *flags) (*exporter.RemediationConfig, error) {
	if f.remediation == "" {
		if f.remediationToken != "" {
			return nil, errors.New("--remediation.token-file is set but --remediation.config is not: add the rules file, or remove the token")
		}
		return nil, nil
	}
	cfg, err := remediation.LoadConfig(f.remediation)
	if err != nil {
		return nil, fmt.Errorf("--remediation.config=%s: %v", f.remediation, oneLine(err))
	}
	rc := &exporter.RemediationConfig{ConfigPath: f.remediation}
	if f.remediationToken != "" {
		if rc.Token, err = readToken(f.remediationToken); err != nil {
			return nil, fmt.Errorf("--remediation.token-file=%s: %v", f.remediationToken, err)
		}
	}
	if f.web.WebConfigFile != nil && *f.web.WebConfigFile != "" {
		if rc.BasicAuth, err = hasBasicAuth(*f.web.WebConfigFile); err != nil {
			return nil, fmt.Errorf("--web.config.file=%s: %v", *f.web.WebConfigFile, err)
		}
	}
	ledger := ""
	if f.cacheFile != "" {
		ledger = f.cacheFile + remediation.LedgerSuffix
	}
	if err := remediation.CheckAuth(cfg, rc.Token, rc.BasicAuth, ledger); err != nil {
		return nil, fmt.Errorf("--remediation.config=%s: %v", f.remediation, err)
	}
	return rc, nil
}

// readToken reads a bearer token file: one line of at least 16 visible
// characters, not an API key.
func readToken(path string) (string, error) {
	b, err := readSmallFile(path, 4096)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", errors.New("is empty: write a random token in it, such as the output of 'openssl rand -hex 32'")
	case strings.ContainsAny(tok, " \t\r\n"):
		return "", errors.New("holds more than one word: write the token alone")
	case len(tok) < 16:
		return "", errors.New("holds a token shorter than 16 characters: use a long random one, such as the output of 'openssl rand -hex 32'")
	case looksLikeKey(tok):
		return "", errors.New("holds what looks like a Mintlify API key (mint_...): the webhook's token must be a secret of its own")
	}
	return tok, nil
}

// hasBasicAuth reports whether the web configuration file sets
// basic_auth_users, which makes every request authenticate.
func hasBasicAuth(path string) (bool, error) {
	b, err := readSmallFile(path, 1<<20)
	if err != nil {
		return false, err
	}
	var c struct {
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return false, fmt.Errorf("cannot read basic_auth_users: %v", oneLine(err))
	}
	return len(c.Users) > 0, nil
}

// readSmallFile reads a regular file of at most limit bytes.
func readSmallFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("is not a regular file")
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("is larger than %d bytes", limit)
	}
	return os.ReadFile(path)
}
