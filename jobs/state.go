package jobs

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Row is one watched agent job as the landing page shows it.
type Row struct {
	Project, ID string
	// Status is as last read or, before a read or after a 404, as listed.
	Status    string
	PRLink    string
	CreatedAt time.Time
	Known     bool // the last read succeeded
	NotFound  bool // the last read answered 404
}

// Jobs returns every watched job, sorted by project then id.
func (w *Watcher) Jobs() []Row {
	w.mu.Lock()
	defer w.mu.Unlock()
	var rows []Row
	for _, pid := range w.order {
		for id, e := range w.projects[pid].jobs {
			r := Row{Project: pid, ID: id, Status: string(e.hint), NotFound: e.gone}
			if j := e.job; j != nil && !e.gone {
				r.Known = true
				r.Status = string(j.Status)
				r.CreatedAt = j.CreatedAt
				if j.PRLink != nil {
					r.PRLink = *j.PRLink
				}
			}
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b Row) int { return cmp.Or(strings.Compare(a.Project, b.Project), strings.Compare(a.ID, b.ID)) })
	return rows
}
