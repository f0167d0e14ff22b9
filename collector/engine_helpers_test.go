package collector

import (
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// The engine's names, as the collector's tests use them.
type (
	Budget     = budget.Budget
	Status     = health.Status
	Window     = engine.Window
	Exposition = exposition.Exposition
)

var (
	NewBudget   = budget.New
	NewStatus   = health.NewStatus
	ParseWindow = engine.ParseWindow
)

// SourceVisitors is the visitors source's value of the "source" label.
const SourceVisitors = "visitors"

// Backoffs of the engine that the tests check.
const (
	rateLimitBackoffBase = 2 * time.Minute
	failureBackoffBase   = 30 * time.Second
)

// visitorsConfig is what the tests configure: an engine with the visitors
// source alone.
type visitorsConfig struct {
	Client      *client.Client
	Projects    []string
	Windows     []Window
	MinInterval time.Duration
	PageSize    int
	MaxPages    int
	Filter      PathFilter
	Budget      *Budget
	Status      *Status
	Logger      log.Logger
	Clock       *mintlifytest.Clock
}

// visitorsEngine is an engine with the visitors source that starts its
// first refreshes at the first scrape, as the tests expect, rather than at
// construction.
type visitorsEngine struct {
	*engine.Engine
}

func newVisitorsEngine(cfg visitorsConfig) (*visitorsEngine, error) {
	src := NewVisitors(cfg.Client.PathsPage, Options{PageSize: cfg.PageSize, MaxPages: cfg.MaxPages, Filter: cfg.Filter})
	e, err := engine.New(engine.Config{
		Sources: []engine.Source{src}, Projects: cfg.Projects, Windows: cfg.Windows,
		MinInterval: cfg.MinInterval, Budget: cfg.Budget, Status: cfg.Status, Logger: cfg.Logger,
		Now: cfg.Clock.Now, WaitUntil: cfg.Clock.WaitUntil,
	})
	if err != nil {
		return nil, err
	}
	return &visitorsEngine{e}, nil
}

// Touch starts the engine on the first scrape, then touches it.
func (v *visitorsEngine) Touch() {
	v.Start()
	v.Engine.Touch()
}

// settle waits, up to a minute, until e's worker sleeps until clk moves:
// nothing is left to send now.
func settle(t testing.TB, clk *mintlifytest.Clock, e *engine.Engine) {
	t.Helper()
	if !clk.Settle(1, time.Minute) {
		t.Fatalf("the engine still works after a minute: %+v", e.States())
	}
}

// Interval is the first unit's interval.
func (v *visitorsEngine) Interval() time.Duration { return v.States()[0].Interval }

// windowOf parses a window name the test knows is valid.
func windowOf(t *testing.T, s string) engine.Window {
	t.Helper()
	w, err := engine.ParseWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
