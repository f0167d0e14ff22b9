package cli

// Checks of the files the flags name, shared by the flag groups.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// checkFiles validates the file flags before anything opens a file: the
// cache's directory must be writable; each file read must be a regular file
// (a FIFO would hang the start, and SIGTERM with it) no larger than its
// reader takes, those of --cache.file may be missing; no two flags may name
// the same file (the cache would overwrite the key).
func checkFiles(f *flags) error {
	if c := f.cacheFile; c != "" {
		if err := checkCacheFile(c); err != nil {
			return fmt.Errorf("--cache.file=%s: %v", c, err)
		}
		for i, fl := range []struct {
			path  string
			limit int64
		}{
			{c, statefile.MaxCacheBytes},
			{c + statefile.JournalSuffix, statefile.MaxJournalBytes},
			{c + remediation.LedgerSuffix, remediation.MaxLedgerBytes},
		} {
			if err := checkFile(fl.path, fl.limit, true); err != nil && i == 0 {
				return fmt.Errorf("--cache.file=%s: %v", c, err)
			} else if err != nil {
				return fmt.Errorf("--cache.file=%s: %s %v", c, fl.path, err)
			}
		}
	}
	// A limit of 0: the file is checked where it is read (the cache above).
	files := []struct {
		flag, path string
		limit      int64
	}{
		{"--cache.file", f.cacheFile, 0},
		{"--mintlify.api-key-file", f.api.keyFile, 0},
		{"--jobs.file", f.jobs.file, 0}, // checkJobsFile
		{"--remediation.config", f.remediation.config, remediation.MaxConfigBytes},
		{"--remediation.token-file", f.remediation.tokenFile, maxTokenFileBytes},
		{"--web.config.file", *f.web.toolkit.WebConfigFile, 0},
		{"--stream.traffic-rules", f.stream.trafficRules, maxStreamFileBytes},
		{"--stream.event-map", f.stream.eventMap, maxStreamFileBytes},
	}
	for _, fl := range files {
		if fl.path != "" && fl.limit > 0 {
			if err := checkFile(fl.path, fl.limit, false); err != nil {
				return fmt.Errorf("%s=%s: %v", fl.flag, fl.path, err)
			}
		}
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

func checkCacheFile(p string) error {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return errors.New("is a directory; give a file name in it, such as " + filepath.Join(p, "mintlify_exporter.cache"))
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
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// sameFile reports whether two paths name one file on disk or one path.
func sameFile(a, b string) bool {
	if sa, err := os.Stat(a); err == nil {
		if sb, err := os.Stat(b); err == nil {
			return os.SameFile(sa, sb)
		}
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb // Abs cleans
}

// unwrapPath drops the path of a *fs.PathError, which the message names.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// looksLikeKey reports whether s (a job id) is an admin API key instead.
func looksLikeKey(s string) bool {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 { // PROJECT/ID
		s = s[i+1:]
	}
	return client.CheckKey(s) == nil // admin keys only, which start with mint_
}

// checkJobsFile refuses a jobs file that holds an API key (the key file
// given by mistake): its lines would become job_id labels.
func checkJobsFile(p string) error {
	b, err := readSmallFile(p, jobs.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("does not exist; create it, with one job id a line")
	}
	if err != nil {
		return err
	}
	for i, line := range strings.Split(string(b), "\n") {
		if looksLikeKey(line) {
			return fmt.Errorf("line %d looks like an admin API key (mint_...), not a job id: is this the key file?", i+1)
		}
	}
	return nil
}

// readSmallFile reads a regular file of at most limit bytes; a FIFO is
// refused before it is opened (with no writer, opening blocks). Errors
// leave out the path, which the caller's flag names.
func readSmallFile(path string, limit int64) ([]byte, error) {
	b, _, err := filewatch.New(path).Read(limit)
	return b, fileError(err, limit)
}

// checkFile checks what readSmallFile checks, without reading; a missing
// file passes when missingOK (a file the exporter creates).
func checkFile(path string, limit int64, missingOK bool) error {
	st, err := os.Stat(path)
	switch {
	case missingOK && errors.Is(err, fs.ErrNotExist):
		err = nil
	case err == nil && !st.Mode().IsRegular():
		err = filewatch.ErrNotRegular
	case err == nil && st.Size() > limit:
		err = filewatch.ErrTooLarge
	}
	return fileError(err, limit)
}

// fileError words the errors of readSmallFile and checkFile.
func fileError(err error, limit int64) error {
	switch {
	case errors.Is(err, filewatch.ErrNotRegular):
		return errors.New("is not a regular file (a FIFO, device or directory would hang or fail the exporter); give a regular file")
	case errors.Is(err, filewatch.ErrTooLarge) && limit >= 1<<20:
		return fmt.Errorf("is larger than %d MiB, more than a file of this kind holds: is it the right file?", limit>>20)
	case errors.Is(err, filewatch.ErrTooLarge):
		return fmt.Errorf("is larger than %d KiB, more than a file of this kind holds: is it the right file?", limit>>10)
	}
	return unwrapPath(err) // nil for nil
}
