package cli

// Kingpin's parse errors, in the style of every other configuration error.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/kingpin/v2"
)

// badValue finds the value kingpin quotes in a parse error: "30" in
// `time: missing unit in duration "30"`, verbose in `got 'verbose'`.
var badValue = regexp.MustCompile(`"([^"]*)"|'([^']*)'`)

// explainParseError makes kingpin's parse errors name the flag at fault,
// in the style of every other configuration error ("--flag=value: what"),
// and suggests the nearest flag for an unknown one.
func explainParseError(app *kingpin.Application, args []string, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown long flag '"); ok {
		name = strings.TrimSuffix(name, "'")
		if near := nearestFlag(app, strings.TrimPrefix(name, "--")); near != "" {
			return fmt.Sprintf("unknown flag %s (did you mean --%s)", name, near)
		}
		return "unknown flag " + name
	}
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value := m[1] + m[2]
	for i, a := range args {
		name, v, hasValue := strings.Cut(a, "=")
		if !hasValue && i+1 < len(args) {
			v = args[i+1]
		}
		if strings.HasPrefix(name, "--") && v == value {
			return fmt.Sprintf("%s=%s: %s", name, value, msg)
		}
	}
	return msg
}

// nearestFlag returns the flag whose name is closest to name (at most a
// third of its letters apart), or "".
func nearestFlag(app *kingpin.Application, name string) string {
	best, bestD := "", len(name)/3+1
	for _, f := range app.Model().Flags {
		if d := editDistance(name, f.Name); d < bestD && !f.Hidden {
			best, bestD = f.Name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1) // distances from a[:i] to each prefix of b
	for j := range row {
		row[j] = j
	}
	for i := range len(a) {
		diag := row[0]
		row[0] = i + 1
		for j := range len(b) {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			diag, row[j+1] = row[j+1], min(row[j+1]+1, row[j]+1, diag+cost)
		}
	}
	return row[len(b)]
}
