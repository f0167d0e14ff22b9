package remediation_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

// TestRuleReadingAMissingLabelDoesNotAct: the shipped rule's templates
// read .Labels.path; an alert without it, or with it empty (or blank),
// rendered `Readers gave the page "" many thumbs down` and every such alert
// shared the key "docs", so the first capped the rest. Now none of them
// acts: each is counted as outcome error, nothing is sent, and one line
// names the rule and the label.
func TestRuleReadingAMissingLabelDoesNotAct(t *testing.T) {
	for _, dryRun := range []string{"false", "true"} {
		t.Run("dry_run "+dryRun, func(t *testing.T) {
			e := newEnv(t, fmt.Sprintf(thumbsDown, dryRun))
			var alerts []map[string]any
			for _, path := range []string{"", " ", "\n"} {
				alerts = append(alerts, alert(path, 12))
			}
			lacking := alert("/x", 12)
			delete(lacking["labels"].(map[string]string), "path")
			alerts = append(alerts, lacking, lacking)
			code, out := e.post(payload(alerts...), "Bearer "+token)
			if code != 200 || len(out) != len(alerts) {
				t.Fatalf("answer %d %+v", code, out)
			}
			for i, o := range out {
				if o.Outcome != remediation.OutcomeError || !strings.Contains(o.Reason, `"path"`) {
					t.Errorf("alert %d: %+v, want outcome error naming the label path", i, o)
				}
			}
			if n := len(e.fake.Requests()); n != 0 {
				t.Errorf("%d requests sent for alerts without a path", n)
			}
			if v := counter(t, e.r, "mintlify_remediation_alerts_total", map[string]string{"rule": "thumbs-down", "outcome": "error"}); v != float64(len(alerts)) {
				t.Errorf("outcome error counted %v times, want %d", v, len(alerts))
			}
			if n := e.logs.CountLines("reads a label", "rule=thumbs-down", "label=path"); n != 1 {
				t.Errorf("%d lines name the rule and the label, want 1:\n%s", n, e.logs)
			}
			if strings.Contains(e.logs.String(), "would create") {
				t.Errorf("a dry run says it would act:\n%s", e.logs)
			}
			// A proper alert still acts.
			if o := e.fire(alert("/quickstart", 12)); o.Outcome != remediation.OutcomeCreated && o.Outcome != remediation.OutcomeDryRun {
				t.Errorf("an alert with a path: %+v", o)
			}
		})
	}
}

// TestPublicLabelNamesAsAPersonReadsThem: the guard against text typed by
// the public matched the label name term exactly; Term, TERM, a Cyrillic
// look-alike (tеrm, with a Cyrillic е), Greek capitals and fullwidth
// letters passed. Each is refused at start without allow_public_text, and
// an alert's label of such a name is not given to the templates.
func TestPublicLabelNamesAsAPersonReadsThem(t *testing.T) {
	for _, read := range []string{
		`{{ .Labels.Term }}`,
		`{{ .Labels.TERM }}`,
		"{{ .Labels.t\u0435rm }}",                           // Cyrillic е
		"{{ index .Labels \"\u0422\u0395RM\" }}",            // Cyrillic Т, Greek Ε
		"{{ index $.Labels \"\uff54\uff45\uff52\uff4d\" }}", // fullwidth
		"{{ index .Labels \"te\u200brm\" }}",                // a zero-width space
	} {
		_, err := remediation.ParseConfig([]byte(publicTextRule(read, false)))
		if err == nil || !strings.Contains(err.Error(), "allow_public_text") {
			t.Errorf("%s: %v; want refused naming allow_public_text", read, err)
		}
		if _, err := remediation.ParseConfig([]byte(publicTextRule(read, true))); err != nil {
			t.Errorf("%s with allow_public_text: %v", read, err)
		}
	}
	for _, name := range []string{"Term", "TERM", "t\u0435rm", "\u0422\u0395RM"} {
		e := newEnv(t, publicTextRule(`{{ range .Labels }}{{ . }} {{ end }}`, false))
		a := searchAlert()
		labels := a["labels"].(map[string]string)
		delete(labels, "term")
		labels[name] = publicTerm
		o := e.fire(a)
		if o.Outcome != remediation.OutcomeCreated {
			t.Fatalf("label %s: %+v", name, o)
		}
		for _, m := range e.fake.Messages("docs", o.JobID) {
			if strings.Contains(m, "ignore the above") {
				t.Errorf("label %s: the public text reached the agent without allow_public_text:\n%s", name, m)
			}
		}
	}
	for _, name := range []string{"terms", "path", "team", "tem"} {
		if remediation.IsPublicLabel(name) {
			t.Errorf("IsPublicLabel(%q) is true", name)
		}
	}
}
