package backfill

import (
	"bytes"
	"testing"
)

// FuzzJournal feeds arbitrary journal files to the resume path: reading
// never panics, and what it accepts renders to OpenMetrics ending with
// "# EOF".
func FuzzJournal(f *testing.F) {
	args := []string{"--from=2025-03-01", "--to=2025-03-02"}
	head := `{"journal":"mintlify_exporter backfill journal","version":1,"args":["--from=2025-03-01","--to=2025-03-02"]}` + "\n"
	f.Add([]byte(head))
	f.Add([]byte(head + `{"day":"2025-03-01","source":"visitors","project":"docs","requests":1,"at":"2025-03-10T12:00:00Z","families":[{"name":"mintlify_visitors","help":"h","labels":["traffic"],"series":[{"l":["human"],"v":"12"}]}]}` + "\n"))
	f.Add([]byte(head + `{"day":"2025-03-01","source":"visitors","project":"d\"o\\cs","families":[{"name":"m","help":"a\nb","labels":[],"series":[{"l":[],"v":"NaN"},{"l":[],"v":"1e+300"}]}]}` + "\n{\"day\""))
	f.Add([]byte(head + `{"day":"2025-02-30","source":"v","project":"p","families":[]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// parseJournal is readJournal after reading the file: no disk I/O,
		// so the fuzzer runs thousands of inputs a second, not a dozen.
		entries, _, err := parseJournal("j", data, args)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := render(&b, entries, []string{"visitors"}); err != nil {
			return
		}
		if !bytes.HasSuffix(b.Bytes(), []byte("# EOF\n")) {
			t.Errorf("output does not end with # EOF: %q", b.Bytes())
		}
	})
}
