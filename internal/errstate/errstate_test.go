package errstate

import "testing"

func TestState(t *testing.T) {
	var s State
	for i, step := range []struct {
		fail  string // "" for a success
		news  bool
		after bool // failing after the step
	}{
		{"", false, false},       // healthy stays quiet
		{"timeout", true, true},  // first failure
		{"timeout", false, true}, // the same again
		{"api 500", true, true},  // another kind
		{"", true, false},        // the recovery
		{"", false, false},       // and no more
		{"timeout", true, true},  // a new failure after recovering
	} {
		var news bool
		if step.fail == "" {
			news = s.Recovered()
		} else {
			news = s.Failed(step.fail)
		}
		if failing := s.class != ""; news != step.news || failing != step.after {
			t.Errorf("step %d (%q): news %v, failing %v; want %v, %v", i, step.fail, news, failing, step.news, step.after)
		}
	}
	var e State
	if !e.Failed("") || e.class == "" {
		t.Error("a failure without a class is not recorded")
	}
}
