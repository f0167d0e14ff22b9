package remediation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

// TestLedgerTimesFromTheFutureClamped: actions and a job dated 2031 in
// the ledger (a clock that was wrong) are set to now at start, with a
// warning, so the project's caps and the key's cooldown run from now,
// not from 2031.
func TestLedgerTimesFromTheFutureClamped(t *testing.T) {
	e := newEnv(t, fmt.Sprintf(thumbsDown, "false"))
	ledger := filepath.Join(e.dir, "state.json"+remediation.LedgerSuffix)
	future := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	var actions []string
	for range 20 {
		actions = append(actions, `{"project":"docs","at":"`+future+`"}`)
	}
	content := `{"format":"mintlify_exporter/remediation","version":1,"entries":[` +
		`{"key":"docs/old","rule":"thumbs-down","project":"docs","jobId":"job_x","created":"` + future + `","messaged":"0001-01-01T00:00:00Z","ended":"` + future + `","values":""}],` +
		`"actions":[` + strings.Join(actions, ",") + `]}`
	if err := os.WriteFile(ledger, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	e.r = e.start()
	if e.logs.CountLines("times from the future in the remediation ledger", "times=22") != 1 {
		t.Errorf("no warning of the 22 times clamped:\n%s", e.logs)
	}
	if o := e.fire(alert("/a", 12)); o.Outcome != remediation.OutcomeCapped {
		t.Errorf("right after the start: %+v, want capped (the 20 actions count from now)", o)
	}
	e.clock.Advance(24 * time.Hour)
	if o := e.fire(alert("/a", 12)); o.Outcome != remediation.OutcomeCreated {
		t.Errorf("a day later: %+v, want created (capped until 2031 before the fix)", o)
	}
	e.clock.Advance(169 * time.Hour)
	if o := e.fire(alert("/old", 12)); o.Outcome != remediation.OutcomeCreated {
		t.Errorf("the key whose job ended in 2031, a cooldown later: %+v, want created", o)
	}
}
