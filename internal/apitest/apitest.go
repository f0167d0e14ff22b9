// Package apitest gives tests an API client of the fake (client/mintlifytest)
// and the engine windows they configure.
package apitest

import (
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
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
