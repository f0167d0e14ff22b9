package collector_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// The README's cost table is hand-written prose; it must say what the
// descriptors say, one row per source in their order, and the README
// stays under 16 KiB.
func TestReadmeCostTableIsTheDescriptors(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 16384 {
		t.Errorf("README.md is %d bytes, more than 16,384", len(b))
	}
	var want strings.Builder
	want.WriteString("| `--collector.` | endpoint | default | requests per window |\n|---|---|---|---|\n")
	for _, d := range collector.Sources {
		def := "off"
		if d.Default {
			def = "on"
		}
		fmt.Fprintf(&want, "| `%s` | `%s` | %s | %s |\n", d.Name, d.Endpoint, def, d.Cost)
	}
	if !strings.Contains(string(b), want.String()) {
		t.Errorf("README.md's cost table (The request budget) is not, line for line:\n%s", want.String())
	}
}

// Every descriptor is complete: a flag name, an analytics endpoint, a help
// and a cost text, and a constructor of a source of its name.
func TestDescriptorsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range collector.Sources {
		switch {
		case d.Name == "" || seen[d.Name]:
			t.Errorf("descriptor %q: empty or repeated name", d.Name)
		case !d.Endpoint.Analytics() || d.Endpoint.Path() == "" || d.Endpoint.Method() != "GET":
			t.Errorf("%s: endpoint %q is not a defined analytics GET", d.Name, d.Endpoint)
		case d.Help == "" || d.Cost == "" || strings.HasSuffix(d.Help, ".") || !strings.HasPrefix(d.Cost, "1 request"):
			t.Errorf("%s: help %q, cost %q", d.Name, d.Help, d.Cost)
		case d.New == nil:
			t.Errorf("%s: no constructor", d.Name)
		}
		seen[d.Name] = true
		if d.New != nil {
			if got := d.New(nil, collector.Options{}).Name(); got != d.Name {
				t.Errorf("descriptor %s builds source %s", d.Name, got)
			}
		}
	}
	if got, want := collector.DefaultNames(), "visitors, views, assistant, feedback, searches"; got != want {
		t.Errorf("DefaultNames() = %q, want %q", got, want)
	}
}
