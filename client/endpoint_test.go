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
