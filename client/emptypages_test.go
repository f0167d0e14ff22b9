package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// TestEndlessEmptyPagesEndTheWalk: an API that answers every page with no
// rows and hasMore true ends the walk with ErrEmptyPages after
// client.MaxEmptyPages pages (not at the page limit), serial or parallel;
// empty pages that stop short of that are followed.
func TestEndlessEmptyPagesEndTheWalk(t *testing.T) {
	ds, r := generated(250)
	endless := mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, EmptyPage: true, HasMoreForever: true}
	for _, tc := range []struct {
		name     string
		opts     client.WalkOptions
		wantReqs int
	}{
		{"serial", client.WalkOptions{PageSize: 100}, client.MaxEmptyPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
			h.srv.AddFault(endless)
			res, err := walkVisitors(context.Background(), h.c, testProject, r, tc.opts)
			if res != nil || !errors.Is(err, client.ErrEmptyPages) || !errors.Is(err, client.ErrTooManyPages) {
				t.Fatalf("result %v, error %v; want no result and ErrEmptyPages", res != nil, err)
			}
			if !strings.Contains(err.Error(), "3 empty pages in a row") || !strings.Contains(err.Error(), testProject) {
				t.Errorf("error %q does not say what happened", err)
			}
			if got := h.count(mintlifytest.EndpointVisitors); got != tc.wantReqs {
				t.Errorf("%d requests, want %d", got, tc.wantReqs)
			}
		})
	}
	t.Run("three in a row mid-walk; two, then the last page", func(t *testing.T) {
		h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
		for _, off := range []int{100, 200} {
			h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: off, EmptyPage: true, HasMoreForever: true})
		}
		// The page at 300 has no rows left, but says hasMore: a third
		// empty page in a row would end the walk, so give it one.
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 300, HasMoreForever: true})
		res, err := walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{PageSize: 100})
		if err == nil {
			t.Fatalf("the walk of %d pages ended without an error; the page at 300 is the third empty one in a row", res.Pages)
		}
		h2 := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
		for _, off := range []int{0, 100} {
			h2.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: off, EmptyPage: true, HasMoreForever: true})
		}
		res, err = walkVisitors(context.Background(), h2.c, testProject, r, client.WalkOptions{PageSize: 100})
		if err != nil || len(res.Rows) != 50 || res.Pages != 3 {
			t.Fatalf("two empty pages then the last: %v; want 50 rows in 3 pages", err)
		}
	})
}

// TestEndlessEmptyPagesFailTheUnit: in the engine, a site whose every
// visitors page is empty with hasMore fails its units (mintlify_up 0)
// after a few requests each, and they back off: in 15 s of the clock the
// API gets a handful of visitors requests, not a walk to the page limit.
func TestEndlessEmptyPagesFailTheUnit(t *testing.T) {
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 8, Paths: 10, End: testEnd})
	rig := apitest.NewRig(t, testClock(), mintlifytest.WithProject(testProject, ds))
	clk, srv := rig.Clock, rig.Fake
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, EmptyPage: true, HasMoreForever: true})
	st := health.NewStatus()
	e := newEngine(t, rig, srv.URL(), rig.Budget(100), st, &logbuf.Buffer{})
	e.Start()
	defer e.Close()
	for range 15 {
		if !clk.Settle(1, time.Minute) {
			t.Fatal("the engine still works after a minute")
		}
		clk.Advance(time.Second)
	}
	if !clk.Settle(1, time.Minute) {
		t.Fatal("the engine still works after a minute")
	}
	if st.Up(testProject, "visitors") {
		t.Error("mintlify_up{source=\"visitors\"} is 1; every walk failed")
	}
	if !st.Up(testProject, "views") {
		t.Error("mintlify_up{source=\"views\"} is 0; only visitors is faulty")
	}
	n := 0
	for _, rq := range srv.Requests() {
		if rq.Endpoint == mintlifytest.EndpointVisitors {
			n++
		}
	}
	// 3 windows, each a probe of one row and MaxEmptyPages pages, once in
	// 15 s (the back-off is 30 s).
	if want := 3 * (1 + client.MaxEmptyPages); n > want {
		t.Errorf("%d visitors requests in 15 s, want at most %d", n, want)
	}
}

// TestEndlessEmptyConversationPages: the conversations walk ends the same
// way after MaxEmptyPages pages in a row without a turn, each with a new
// cursor and hasMore.
func TestEndlessEmptyConversationPages(t *testing.T) {
	_, r := generated(0)
	// More than MaxEmptyPages pages of turns, for the cursor to move on.
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 50, Paths: 50, Days: 30, End: testEnd, TurnsPerDay: 200})
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointConversations, EmptyPage: true, HasMoreForever: true})
	res, err := h.c.WalkConversations(context.Background(), testProject, r, 0)
	if res != nil || !errors.Is(err, client.ErrEmptyPages) {
		t.Fatalf("result %+v, error %v; want ErrEmptyPages", res, err)
	}
	if got := h.count(mintlifytest.EndpointConversations); got != client.MaxEmptyPages {
		t.Errorf("%d requests, want %d", got, client.MaxEmptyPages)
	}
}
