package backfill

import (
	"bytes"
	"testing"
)

// FuzzJournal feeds arbitrary journal files to the resume path: reading
// never panics, what it accepts renders to OpenMetrics ending with
// "# EOF", and its remote-write requests have sorted labels and samples in
// time order.
func FuzzJournal(f *testing.F) {
	args := []string{"--from=2025-03-01", "--to=2025-03-02"}
	head := `{"journal":"mintlify_exporter backfill journal","version":1,"args":["--from=2025-03-01","--to=2025-03-02"]}` + "\n"
	f.Add([]byte(head))
	f.Add([]byte(head + `{"day":"2025-03-01","source":"visitors","project":"docs","requests":1,"at":"2025-03-10T12:00:00Z","families":[{"name":"mintlify_visitors","help":"h","labels":["traffic"],"series":[{"l":["human"],"v":"12"}]}]}` + "\n"))
	f.Add([]byte(head + `{"day":"2025-03-01","source":"visitors","project":"d\"o\\cs","families":[{"name":"m","help":"a\nb","labels":[],"series":[{"l":[],"v":"NaN"},{"l":[],"v":"1e+300"}]}]}` + "\n{\"day\""))
	f.Add([]byte(head + `{"day":"2025-02-30","source":"v","project":"p","families":[]}` + "\n"))
	f.Add([]byte(head + `{"day":"2025-03-01","source":"visitors","project":"docs","families":[{"name":"m","help":"h","labels":["zz","a"],"series":[{"l":["",""],"v":"1"}]}]}` + "\n" + `{"sent":[["2025-03-01","visitors","docs"]]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// parseJournal is what a resume runs on the file it read: no disk I/O,
		// so the fuzzer runs thousands of inputs a second, not a dozen.
		jd, err := parseJournal("j", data, args)
		if err != nil {
			return
		}
		labels := []Label{{"job", DefaultJob}}
		var b bytes.Buffer
		if err := render(&b, jd.entries, []string{"visitors"}, labels); err == nil && !bytes.HasSuffix(b.Bytes(), []byte("# EOF\n")) {
			t.Errorf("output does not end with # EOF: %q", b.Bytes())
		}
		req, _ := writeRequest(jd.entries, labels)
		for _, ts := range req.Timeseries {
			for i := 1; i < len(ts.Labels); i++ {
				if ts.Labels[i-1].Name >= ts.Labels[i].Name {
					t.Errorf("labels not sorted or repeated: %v", ts.Labels)
				}
			}
			for i := 1; i < len(ts.Samples); i++ {
				if ts.Samples[i-1].Timestamp >= ts.Samples[i].Timestamp {
					t.Errorf("samples not in time order: %v", ts.Samples)
				}
			}
		}
	})
}
