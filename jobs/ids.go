package jobs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
)

type jobRef struct{ project, id string }

// parseJobRef parses "ID" (with exactly one project) or "PROJECT/ID".
func parseJobRef(s string, projects []string) (jobRef, error) {
	s = strings.TrimSpace(s)
	project, id, scoped := strings.Cut(s, "/")
	if !scoped {
		id = s
		if len(projects) == 1 {
			project = projects[0]
		}
	}
	switch err := checkJobID(id); {
	case s == "":
		return jobRef{}, fmt.Errorf("empty job id")
	case strings.IndexFunc(s, unicode.IsSpace) >= 0:
		return jobRef{}, fmt.Errorf("job id %q contains white space", s)
	case err != nil:
		return jobRef{}, err
	case !scoped && len(projects) != 1:
		return jobRef{}, fmt.Errorf("job id %q has no project: with %d --mintlify.project-id values, write it as PROJECT/ID", s, len(projects))
	case scoped && (project == "" || id == ""):
		return jobRef{}, fmt.Errorf("job id %q: want ID or PROJECT/ID", s)
	case !slices.Contains(projects, project):
		return jobRef{}, fmt.Errorf("job id %q: project %q is not one of the configured --mintlify.project-id values", s, project)
	}
	return jobRef{project: project, id: id}, nil
}

// checkJobID refuses "." and "..", which would address another route.
func checkJobID(id string) error {
	if id == "." || id == ".." {
		return fmt.Errorf("job id %q is not a job id: %q would address another route of the API; remove it", id, id)
	}
	return nil
}

// MaxFileBytes bounds a --jobs.file (tens of thousands of ids).
const MaxFileBytes = 1 << 20

// loadFile parses --jobs.file if it changed: one job id a line, '#'
// comments; one invalid line makes the whole file invalid. It reports
// whether the list changed and any problem; on a problem the last good
// list stays.
func (w *Watcher) loadFile() (changed bool, err error) {
	if changed, err := w.file.Changed(); err != nil || !changed {
		return false, err
	}
	data, info, err := w.file.Read(MaxFileBytes)
	switch {
	case errors.Is(err, filewatch.ErrNotRegular), errors.Is(err, filewatch.ErrTooLarge):
		return false, fmt.Errorf("%s: %w", w.file.Path(), err)
	case err != nil:
		return false, err
	}
	// The version is recorded even when it does not parse, so a bad file is
	// reported once, not at every poll, until it changes again.
	w.file.Mark(info)
	var refs []jobRef
	for n, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		r, err := parseJobRef(line, w.order)
		if err != nil {
			return false, fmt.Errorf("%s:%d: %w", w.file.Path(), n+1, err)
		}
		refs = append(refs, r)
	}
	w.mu.Lock() // Watch reads the list too
	w.fileRefs = refs
	w.mu.Unlock()
	return true, nil
}
