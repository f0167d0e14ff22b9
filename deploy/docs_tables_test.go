package deploy

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// operationsFile documents the alerts (a table of their severities) and the
// example routing.
var operationsFile = filepath.Join("..", "docs", "operations.md")

// alertRow matches a row of operations.md's alert table: name and severity.
var alertRow = regexp.MustCompile("(?m)^\\| `(Mintlify[A-Za-z]+)` \\| ([^|]+) \\|")

// severityCell is what the alert table says of an alert's routing labels:
// its severity, and the team label when it has one.
func severityCell(a rule) string {
	s := a.Labels["severity"]
	if team := a.Labels["team"]; team != "" {
		s += ", `team=" + team + "`"
	}
	return s
}

// TestOperationsAlertTable: docs/operations.md lists every alert of the
// rules file once, with the severity (and team) the rules give it.
func TestOperationsAlertTable(t *testing.T) {
	alerts, _ := loadRules(t)
	doc := string(readFile(t, operationsFile))
	rows := map[string][]string{}
	for _, m := range alertRow.FindAllStringSubmatch(doc, -1) {
		rows[m[1]] = append(rows[m[1]], strings.TrimSpace(m[2]))
	}
	var names []string
	for _, a := range alerts {
		names = append(names, a.Alert)
		got := rows[a.Alert]
		if len(got) != 1 {
			t.Errorf("%s: %d rows in %s's alert table, want 1", a.Alert, len(got), operationsFile)
			continue
		}
		if want := severityCell(a); got[0] != want {
			t.Errorf("%s: %s says %q, the rules %q", a.Alert, operationsFile, got[0], want)
		}
	}
	for n := range rows {
		if !slices.Contains(names, n) {
			t.Errorf("%s's alert table lists %s, which the rules do not define", operationsFile, n)
		}
	}
}

// amtoolExample matches an amtool routing example of operations.md: the
// labels and the receiver its comment promises.
var amtoolExample = regexp.MustCompile(`amtool config routes test --config\.file=(\S+) \\\n\s+((?:\S+=\S+ )+)\s*# -> (\S+)`)

// TestOperationsAmtoolExamples: each routing example in operations.md
// gives an alert the labels the rules give it, and amtool routes it to the
// receiver the example names.
func TestOperationsAmtoolExamples(t *testing.T) {
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	alerts, _ := loadRules(t)
	doc := string(readFile(t, operationsFile))
	examples := amtoolExample.FindAllStringSubmatch(doc, -1)
	if len(examples) == 0 {
		t.Fatalf("no amtool routing example found in %s", operationsFile)
	}
	for _, e := range examples {
		labels := strings.Fields(e[2])
		var name string
		for _, l := range labels {
			if v, ok := strings.CutPrefix(l, "alertname="); ok {
				name = v
			}
		}
		i := slices.IndexFunc(alerts, func(a rule) bool { return a.Alert == name })
		if i < 0 {
			t.Errorf("example %q: no alert %s in the rules", e[0], name)
			continue
		}
		for k, v := range alerts[i].Labels {
			if !slices.Contains(labels, k+"="+v) {
				t.Errorf("example %q: %s has %s=%s in the rules", e[0], name, k, v)
			}
		}
		out, err := runTool(t, ".", amtool, append([]string{"config", "routes", "test",
			"--config.file=" + filepath.Join("..", e[1]), "--verify.receivers=" + e[3]}, labels...)...)
		if err != nil {
			t.Errorf("example %q: amtool routes it elsewhere: %v\n%s", e[0], err, out)
		}
	}
}
