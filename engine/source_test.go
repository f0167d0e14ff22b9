package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// labelled is a memSource whose family has n labels besides project and
// window.
type labelled struct {
	*memSource
	n int
}

func (s labelled) Families() []Family {
	f := s.memSource.Families()[0]
	for i := range s.n {
		f.Labels = append(f.Labels, fmt.Sprintf("l%d", i))
	}
	return []Family{f}
}

// TestFamilyLabels: a family may have MaxLabels labels besides project and
// window; New refuses one more, naming the family.
func TestFamilyLabels(t *testing.T) {
	for _, n := range []int{MaxLabels, MaxLabels + 1} {
		b := budget.New(90, nil)
		_, err := New(Config{Sources: []Source{labelled{newMemSource("many", b), n}}, Projects: []string{"docs"},
			Windows: []Window{{Name: "1d", Days: 1}}, MinInterval: 1, Budget: b, Status: health.NewStatus()})
		switch {
		case n <= MaxLabels && err != nil:
			t.Errorf("%d labels: %v", n, err)
		case n > MaxLabels && (err == nil || !strings.Contains(err.Error(), "family test_many_fetches")):
			t.Errorf("%d labels: error %v, want one naming the family", n, err)
		}
	}
}
