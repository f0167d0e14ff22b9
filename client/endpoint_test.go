package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// The zero Endpoint, the only one made without analytics or free, is
// counted by the budget and refused by the client before the budget is
// asked or anything is sent.
func TestUndefinedEndpointIsCountedAndNeverSent(t *testing.T) {
	srv := mintlifytest.NewServer()
	t.Cleanup(srv.Close)
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	allowed := 0
	c, err := client.New(client.Config{BaseURL: srv.URL(), Key: key, Hooks: client.Hooks{
		Allow: func(context.Context, client.Endpoint) error { allowed++; return nil },
	}})
	if err != nil {
		t.Fatal(err)
	}
	var undefined client.Endpoint
	if !undefined.Analytics() {
		t.Error("an undefined endpoint is not counted against the analytics budget")
	}
	if undefined.MaxBody() != client.DefaultMaxBodyBytes {
		t.Errorf("undefined endpoint's MaxBody = %d", undefined.MaxBody())
	}
	err = c.Do(context.Background(), undefined)
	if !errors.Is(err, client.ErrUndefinedEndpoint) {
		t.Errorf("call of an undefined endpoint: %v", err)
	}
	if allowed != 0 || len(srv.Requests()) != 0 {
		t.Errorf("undefined endpoint: Allow called %d times, %d requests sent", allowed, len(srv.Requests()))
	}
	for _, e := range client.Endpoints {
		if err := c.Do(context.Background(), e); errors.Is(err, client.ErrUndefinedEndpoint) {
			t.Errorf("%s refused as undefined", e)
		}
	}
}

// GetAnalytics reads any analytics endpoint of the table into typed
// structs: the range is sent, a body of another shape is a DecodeError,
// and a bad project id is refused unsent.
func TestGetAnalytics(t *testing.T) {
	ds := mintlifytest.NewDataset()
	day := testEnd.AddDate(0, 0, -1)
	ds.SetCallerStats(day, 3, 2, 1, 7)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	r := client.DateRange{From: client.DateOf(day), To: client.DateOf(testEnd)}
	var got struct{ Web, API, Other, Total int64 }
	if err := h.c.GetAnalytics(context.Background(), client.EndpointCallerStats, testProject, r, nil, &got); err != nil {
		t.Fatal(err)
	}
	if want := h.srv.CallerStats(testProject, r.From.Time(), r.To.Time()); got != struct{ Web, API, Other, Total int64 }(want) {
		t.Errorf("caller stats %+v, want %+v", got, want)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 || reqs[0].Query.Get("dateFrom") != r.From.String() || reqs[0].Query.Get("dateTo") != r.To.String() {
		t.Errorf("requests %+v, want one with the range", reqs)
	}

	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointCallerStats, Body: `{"web":"three"}`})
	var de *client.DecodeError
	if err := h.c.GetAnalytics(context.Background(), client.EndpointCallerStats, testProject, r, nil, &got); !errors.As(err, &de) || de.Endpoint != client.EndpointCallerStats {
		t.Errorf("a body of another shape: %v, want a DecodeError of caller_stats", err)
	}
	if err := h.c.GetAnalytics(context.Background(), client.EndpointCallerStats, "..", r, nil, &got); !errors.Is(err, client.ErrInvalidID) {
		t.Errorf("project \"..\": %v, want ErrInvalidID", err)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (the refused one unsent)", n)
	}
}
