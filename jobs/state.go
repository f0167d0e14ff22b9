package jobs

import (
	"maps"
	"slices"
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
		jobs := w.projects[pid].jobs
		for _, id := range slices.Sorted(maps.Keys(jobs)) {
			e := jobs[id]
			r := Row{Project: pid, ID: id, Status: string(e.hint), NotFound: e.gone}
			if j := e.job; j != nil && !e.gone {
				r.Known, r.Status, r.CreatedAt, r.PRLink = true, string(j.Status), j.CreatedAt, deref(j.PRLink)
			}
			rows = append(rows, r)
		}
	}
	return rows
}
