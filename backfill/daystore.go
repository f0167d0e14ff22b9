package backfill

import (
	"cmp"
	"fmt"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// seedDayStore adds the days of additive sources a run fetched to the day
// store of --cache.file, so that a new installation derives its windows
// (derived.Summer) at once; the rest of the file is left as it was. Pages
// runs seed full windows' days, others Nd:site windows'.
func seedDayStore(cfg Config, entries []*entry) (int, error) {
	byName := map[string]engine.Source{}
	for _, s := range cfg.Sources {
		byName[s.Name()] = s
	}
	st := cmp.Or(statefile.LoadFile(cfg.CacheFile, log.NewNopLogger()), &statefile.File{})
	type dayID struct {
		source, project, day string
		site                 bool
	}
	index := map[dayID]int{} // a year of days for ten projects is thousands: no linear search per entry
	for i, d := range st.Days {
		index[dayID{d.Source, d.Project, d.Day, d.Site}] = i
	}
	n := 0
	for _, e := range entries {
		sum, ok := byName[e.Source].(derived.Summer)
		if !ok || !sum.Additive(engine.Unit{Source: e.Source, Project: e.Project, Window: unitWindow(cfg.Pages)}) {
			continue
		}
		d := derived.Day{Source: e.Source, Project: e.Project, Site: !cfg.Pages, Day: e.Day, ReadAt: e.At,
			Cost: e.Requests, Families: map[string][]engine.Sample{}}
		for _, f := range e.Families {
			for _, s := range f.Series {
				sm := engine.Sample{Value: s.value()}
				copy(sm.Labels[:], s.L)
				d.Families[f.Name] = append(d.Families[f.Name], sm)
			}
		}
		if i, ok := index[dayID{d.Source, d.Project, d.Day, d.Site}]; ok {
			st.Days[i] = d
		} else {
			index[dayID{d.Source, d.Project, d.Day, d.Site}], st.Days = len(st.Days), append(st.Days, d)
		}
		n++
	}
	st.SavedAt = time.Now()
	if err := statefile.Write(cfg.CacheFile, *st); err != nil || statefile.LoadFile(cfg.CacheFile, log.NewNopLogger()) == nil {
		return 0, fmt.Errorf("the day store could not be written to --cache.file=%s", cfg.CacheFile)
	}
	return n, nil
}
