// Package docs_test checks the documentation under docs/ against the code:
// what the docs say the tests check, the tests do.
package docs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReliabilityDocIsTrue checks docs/dev/reliability.md against the code:
// the rows of the fault table say what the fault tests check (malformed
// counts skip a row, fractional counts are exported), and every test the
// table of attacks names exists.
func TestReliabilityDocIsTrue(t *testing.T) {
	b, err := os.ReadFile("dev/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	row := func(prefix string) string {
		for _, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "| "+prefix) {
				return l
			}
		}
		t.Errorf("docs/dev/reliability.md has no row %q", prefix)
		return ""
	}
	// collector/faults_test.go: a string or negative count skips the row,
	// a fractional one is exported; the refresh does not fail.
	for prefix, want := range map[string][]string{
		"Wrong JSON type of a count": {"skipped", "stays 1"},
		"Negative count":             {"skipped", "stays 1"},
		"Fractional count":           {"exported", "stays 1"},
		"Oversized body":             {"8 MiB", "unread"},
	} {
		r := row(prefix)
		for _, w := range want {
			if !strings.Contains(r, w) {
				t.Errorf("row %q does not say %q:\n%s", prefix, w, r)
			}
		}
		if strings.Contains(r, "the refresh fails") {
			t.Errorf("row %q says the refresh fails; it does not:\n%s", prefix, r)
		}
	}

	// Every test named in the attacks table exists.
	start := strings.Index(doc, "## Crashes, hostile answers, files and clients")
	if start < 0 {
		t.Fatal("no section on crashes and hostile inputs")
	}
	section := doc[start:]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	named := regexp.MustCompile("`(?:[a-z]+\\.)?(Test[A-Za-z0-9]+)`").FindAllStringSubmatch(section, -1)
	if len(named) < 15 {
		t.Fatalf("the table names %d tests, want one or more for each of the 15 items", len(named))
	}
	defined := map[string]bool{}
	def := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9]+)\(t \*testing\.T\)`)
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		for _, m := range def.FindAllStringSubmatch(string(src), -1) {
			defined[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !defined[m[1]] {
			t.Errorf("docs/dev/reliability.md names %s, which no test file defines", m[1])
		}
	}

	// The third pass's table: a row for each of its 14 items, each naming
	// tests that exist.
	start = strings.Index(doc, "## Third pass: prompts, webhook memory, one budget per cache file")
	if start < 0 {
		t.Fatal("no section on the third pass")
	}
	third := doc[start:]
	if end := strings.Index(third[3:], "\n## "); end >= 0 {
		third = third[:end+3]
	}
	for item := 1; item <= 14; item++ {
		var line string
		for _, l := range strings.Split(third, "\n") {
			if strings.HasPrefix(l, fmt.Sprintf("| %d | ", item)) {
				line = l
			}
		}
		tests := regexp.MustCompile("`(Test[A-Za-z0-9]+)`").FindAllStringSubmatch(line, -1)
		if len(tests) == 0 {
			t.Errorf("item %d of the third pass has no row naming its test", item)
		}
		for _, m := range tests {
			if !defined[m[1]] {
				t.Errorf("item %d names %s, which no test file defines", item, m[1])
			}
		}
	}
}
