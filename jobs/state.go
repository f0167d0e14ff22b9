package jobs

import (
	"sort"
	"time"
)

// Row is one watched agent job as the landing page shows it.
type Row struct {
	// Project and ID name the job.
	Project, ID string
	// Status is the job's status as last read ("" when the API sent none).
	// For a job not read yet, or not found, it is the status the v1 listing
	// gave it when it was discovered, else "".
	Status string
	// PRLink is the pull request URL, "" when there is none.
	PRLink string
	// CreatedAt is the job's createdAt, the zero time when unknown.
	CreatedAt time.Time
	// Known is true when the job's last read succeeded; false when the API
	// answered 404 (see NotFound) or the job has not been read yet.
	Known bool
	// NotFound is true when the last read answered 404.
	NotFound bool
}

// Jobs returns every watched job, sorted by project then id. It is safe to
// call at any time, concurrently with Poll and Collect.
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
	sort.Slice(rows, func(a, b int) bool {
		if rows[a].Project != rows[b].Project {
			return rows[a].Project < rows[b].Project
		}
		return rows[a].ID < rows[b].ID
	})
	return rows
}
