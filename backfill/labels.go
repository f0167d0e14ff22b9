package backfill

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/common/model"
)

// Label is a target label every backfilled series carries, as a scrape
// gives the live series theirs (job, instance...).
type Label struct{ Name, Value string }

// DefaultJob is the job of the live series with the shipped scrape config,
// Compose file and chart, and the one the shipped rules and dashboards select.
const DefaultJob = "mintlify"

// MergeLabels applies the --backfill.label values, NAME=VALUE, in order to
// the default target labels, job=DefaultJob, and sorts the result by name.
// An empty VALUE removes the label (as in Prometheus, an empty label is no
// label); MergeLabels(nil) is the defaults.
func MergeLabels(values []string) ([]Label, error) {
	m := map[string]string{"job": DefaultJob}
	for _, s := range values {
		name, value, ok := strings.Cut(s, "=")
		switch {
		case !ok:
			return nil, fmt.Errorf("--backfill.label=%s: want NAME=VALUE, such as job=mintlify", s)
		case !model.LegacyValidation.IsValidLabelName(name):
			return nil, fmt.Errorf("--backfill.label=%s: %q is not a label name (letters, digits and _, not starting with a digit)", s, name)
		case strings.HasPrefix(name, "__"):
			return nil, fmt.Errorf("--backfill.label=%s: names starting with __ are reserved for Prometheus", s)
		}
		m[name] = value
	}
	var out []Label
	for _, n := range slices.Sorted(maps.Keys(m)) {
		if m[n] != "" {
			out = append(out, Label{n, m[n]})
		}
	}
	return out, nil
}

// checkLabels refuses target labels (MergeLabels') that clash with the
// series' own labels (project, window, and those of families).
func checkLabels(labels []Label, families map[string][]string) error {
	own := map[string]string{"project": "every series", "window": "every series"}
	for fam, names := range families {
		for _, n := range names {
			own[n] = fam
		}
	}
	for _, l := range labels {
		if by, ok := own[l.Name]; ok {
			return fmt.Errorf("--backfill.label=%s=%s: %s is a label of %s; choose another name", l.Name, l.Value, l.Name, by)
		}
	}
	return nil
}
