package derived

import (
	"cmp"
	"slices"
	"time"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Day is one closed day of the day store, as --cache.file keeps it.
type Day struct {
	Source  string    `json:"source"`
	Project string    `json:"project"`
	Site    bool      `json:"site,omitempty"`
	Day     string    `json:"day"` // UTC, YYYY-MM-DD
	ReadAt  time.Time `json:"readAt"`
	Reread  bool      `json:"reread,omitempty"`
	Cost    int       `json:"cost"`
	// Families holds each family's series, by family name.
	Families map[string][]engine.Sample `json:"families"`
}

// Days returns the day store to persist, in a stable order; provisional
// days are read again after a restart.
func (l *Layer) Days() []Day {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Day, 0, len(l.days))
	for k, de := range l.days {
		if de.Provisional {
			continue
		}
		d := Day{Source: k.Source, Project: k.Project, Site: k.Site, Day: k.Day.String(),
			ReadAt: de.ReadAt, Reread: de.Reread, Cost: de.Result.Cost, Families: map[string][]engine.Sample{}}
		for fi, f := range l.e.Source(k.Source).Families() {
			if fi < len(de.Result.Samples) && len(de.Result.Samples[fi]) > 0 {
				d.Families[f.Name] = de.Result.Samples[fi]
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Day) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Day, b.Day))
	})
	return out
}

// restoreDaysLocked installs the days of Config.Days that a window needs.
func (l *Layer) restoreDaysLocked(now time.Time) {
	n, dropped := 0, 0
	for _, d := range l.restore {
		day, err := client.ParseDate(d.Day)
		k := Key{Source: d.Source, Project: d.Project, Site: d.Site, Day: day}
		if err != nil || d.ReadAt.After(now) || !slices.ContainsFunc(l.windows, func(w *window) bool { return slices.Contains(closedKeys(w, now), k) }) {
			continue
		}
		res, drop, err := engine.RestoredResult(l.e.Source(d.Source), d.Families, d.Cost)
		dropped += drop
		if err != nil {
			level.Warn(l.logger).Log("msg", "ignoring a day of the cache file's day store", "collector", d.Source, "project", d.Project, "day", d.Day, "err", err)
		} else if l.days[k] == nil {
			l.days.Put(k, res, d.ReadAt, d.Reread)
			n++
		}
	}
	// A page walk's day holds the site totals too, for a totals window
	// whose own day is missing (an older cache file, or backfill's).
	for k, de := range l.days {
		site := Key{Source: k.Source, Project: k.Project, Site: true, Day: k.Day}
		if k.Site || l.days[site] != nil || !slices.ContainsFunc(l.windows, func(w *window) bool {
			return w.Source == k.Source && w.Project == k.Project && w.Window.Site && w.split
		}) {
			continue
		}
		if res := engine.SiteWide(l.e.Source(k.Source).Families(), de.Result); res != nil {
			l.days[site] = &Entry[*engine.Result]{Result: res, ReadAt: de.ReadAt, Reread: de.Reread}
		}
	}
	if dropped > 0 {
		level.Warn(l.logger).Log("msg", "dropped series of the cache file's day store that an API answer could not have given; the rest is restored", "series", dropped)
	}
	if len(l.restore) > 0 {
		level.Info(l.logger).Log("msg", "restored the day store from the cache file", "days", n)
	}
	l.restore = nil
}
