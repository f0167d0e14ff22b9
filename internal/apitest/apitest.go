// Package apitest gives tests an API client of the fake (client/mintlifytest).
package apitest

import (
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// Client returns a client of srv; a nil cfg.Key is the fake's key.
func Client(t testing.TB, srv *mintlifytest.Server, cfg client.Config) *client.Client {
	t.Helper()
	cfg.BaseURL = srv.URL()
	if cfg.Key == nil {
		key, err := client.StaticKey(mintlifytest.DefaultKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Key = key
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
