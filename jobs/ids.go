package jobs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
)

// jobRef names one watched job.
type jobRef struct {
	project, id string
}

// parseJobRef parses "ID" (with exactly one project) or "PROJECT/ID".
func parseJobRef(s string, projects []string) (jobRef, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return jobRef{}, fmt.Errorf("empty job id")
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return jobRef{}, fmt.Errorf("job id %q contains white space", s)
	}
	project, id, scoped := strings.Cut(s, "/")
	if !scoped {
		id = s
	}
	if err := checkJobID(id); err != nil {
		return jobRef{}, err
	}
	if !scoped {
		if len(projects) != 1 {
			return jobRef{}, fmt.Errorf("job id %q has no project: with %d --mintlify.project-id values, write it as PROJECT/ID", s, len(projects))
		}
		return jobRef{project: projects[0], id: s}, nil
	}
	if project == "" || id == "" {
		return jobRef{}, fmt.Errorf("job id %q: want ID or PROJECT/ID", s)
	}
	if slices.Contains(projects, project) {
		return jobRef{project: project, id: id}, nil
	}
	return jobRef{}, fmt.Errorf("job id %q: project %q is not one of the configured --mintlify.project-id values", s, project)
}

// checkJobID refuses "." and "..", which would address another route.
func checkJobID(id string) error {
	if id == "." || id == ".." {
		return fmt.Errorf("job id %q is not a job id: %q would address another route of the API; remove it", id, id)
	}
	return nil
}

// parseJobsFile parses a --jobs.file: one job id a line, '#' comments; one
// invalid line makes the whole file invalid.
func parseJobsFile(path string, data []byte, projects []string) ([]jobRef, error) {
	var refs []jobRef
	for n, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		r, err := parseJobRef(line, projects)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		refs = append(refs, r)
	}
	return refs, nil
}

// MaxFileBytes bounds a --jobs.file (tens of thousands of ids).
const MaxFileBytes = 1 << 20

// jobsFile is a --jobs.file and the last good list read from it.
type jobsFile struct {
	file     *filewatch.File // marked with the version last parsed, good or bad
	projects []string

	refs   []jobRef // last good list
	errMsg string   // the current problem, "" when the last check was fine
}

func newJobsFile(path string, projects []string) *jobsFile {
	return &jobsFile{file: filewatch.New(path), projects: projects}
}

// load parses the file if it changed, reporting whether the list changed
// and any problem; on a problem the last good list stays.
func (f *jobsFile) load() (changed bool, err error) {
	if changed, err := f.file.Changed(); err != nil || !changed {
		return false, err
	}
	data, info, err := f.file.Read(MaxFileBytes)
	switch {
	case errors.Is(err, filewatch.ErrNotRegular), errors.Is(err, filewatch.ErrTooLarge):
		return false, fmt.Errorf("%s: %w", f.file.Path(), err)
	case err != nil:
		return false, err
	}
	// The version is recorded even when it does not parse, so a bad file is
	// reported once, not at every poll, until it changes again.
	f.file.Mark(info)
	refs, err := parseJobsFile(f.file.Path(), data, f.projects)
	if err != nil {
		return false, err
	}
	f.refs = refs
	return true, nil
}
