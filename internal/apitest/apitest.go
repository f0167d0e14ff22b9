// Package apitest gives a package's tests an API client of the project's
// fake (client/mintlifytest) on loopback, with the fake's default key: the
// part every test harness shared.
package apitest

import (
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// Client returns a client of srv configured by cfg, whose BaseURL is set
// to srv's and whose Key, when nil, to mintlifytest.DefaultKey. A zero
// cfg.Retry is the client's default policy; tests that must see every
// failure set MaxAttempts: 1.
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
