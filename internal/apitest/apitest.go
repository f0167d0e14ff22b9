// Package apitest is the tests' one rig over the fake Mintlify API
// (client/mintlifytest): the fake on 127.0.0.1, on a manual clock or real
// time, a client of it with the budget's hooks, and an engine on the same
// clock. Every package outside engine/ and collector/ builds its tests on it.
package apitest

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// Rig is a fake API whose "now" is a manual clock, and what tests wire
// around the two.
type Rig struct {
	t     testing.TB
	Clock *mintlifytest.Clock
	Fake  *mintlifytest.Server
}

// NewRig starts a fake with opts on a manual clock that reads start; it is
// closed when the test ends.
func NewRig(t testing.TB, start time.Time, opts ...mintlifytest.Option) *Rig {
	t.Helper()
	clk := mintlifytest.NewClock(start)
	return &Rig{t: t, Clock: clk, Fake: Fake(t, append([]mintlifytest.Option{mintlifytest.WithClock(clk.Now)}, opts...)...)}
}

// Fake starts a fake with opts (on real time unless they give a clock),
// closed when the test ends: for tests of what runs on real time (the
// exporter, the command line).
func Fake(t testing.TB, opts ...mintlifytest.Option) *mintlifytest.Server {
	t.Helper()
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// Client returns a client of the rig's fake on its clock; cfg's BaseURL,
// Key and Now are filled in when unset.
func (r *Rig) Client(cfg client.Config) *client.Client {
	r.t.Helper()
	if cfg.Now == nil {
		cfg.Now = r.Clock.Now
	}
	return Client(r.t, r.Fake, cfg)
}

// Budget returns a ledger of perHour requests on the rig's clock.
func (r *Rig) Budget(perHour int) *budget.Budget { return budget.New(perHour, r.Clock.Now) }

// Engine returns an engine on the rig's clock (cfg's Now and WaitUntil are
// the clock's, a nil Status a new one), closed when the test ends. It is
// not started.
func (r *Rig) Engine(cfg engine.Config) *engine.Engine {
	r.t.Helper()
	cfg.Now, cfg.WaitUntil = r.Clock.Now, r.Clock.WaitUntil
	if cfg.Status == nil {
		cfg.Status = health.NewStatus()
	}
	e, err := engine.New(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(e.Close)
	return e
}

// Refresh starts (or touches) e and waits until its worker sleeps until
// the clock moves: every unit due now has refreshed. The minute is a
// bound on a hung test, not a wait.
func (r *Rig) Refresh(e *engine.Engine) {
	r.t.Helper()
	e.Start()
	e.Touch()
	if !r.Clock.Settle(1, time.Minute) {
		r.t.Fatalf("the engine did not settle within a minute: %+v", e.States())
	}
}

// Key is the fake's API key as a client's key source.
func Key(t testing.TB) client.KeySource {
	t.Helper()
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// Client returns a client of srv (of cfg.BaseURL when set: a proxy or a
// TLS server in front of it); a nil cfg.Key is the fake's key.
func Client(t testing.TB, srv *mintlifytest.Server, cfg client.Config) *client.Client {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.URL()
	}
	if cfg.Key == nil {
		cfg.Key = Key(t)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Windows parses window names the test knows are valid ("1d", "7d:site").
func Windows(t testing.TB, names ...string) []engine.Window {
	t.Helper()
	out := make([]engine.Window, 0, len(names))
	for _, s := range names {
		w, err := engine.ParseWindow(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}
