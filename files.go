package main

// Checks of the files the flags name, shared by the flag groups.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// checkFiles validates the file flags before start: the cache file's
// directory must exist and be writable; no two flags may name the same
// file (the cache would overwrite the key).
func checkFiles(f *flags) error {
	if f.cacheFile != "" {
		if err := checkCacheFile(f.cacheFile); err != nil {
			return fmt.Errorf("--cache.file=%s: %v", f.cacheFile, err)
		}
	}
	files := []struct{ flag, path string }{
		{"--cache.file", f.cacheFile},
		{"--mintlify.api-key-file", f.api.keyFile},
		{"--jobs.file", f.jobs.file},
		{"--remediation.config", f.remediation.config},
		{"--remediation.token-file", f.remediation.tokenFile},
		{"--web.config.file", f.web.configFile()},
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
