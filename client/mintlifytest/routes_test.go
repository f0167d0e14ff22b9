package mintlifytest

import (
	"net/url"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// The fake routes by the client's endpoint table: every endpoint's path,
// ids escaped, reaches that endpoint with its method, and every analytics
// endpoint of the client has a handler.
func TestRoutesAreTheClientsTable(t *testing.T) {
	for _, e := range client.Endpoints {
		p := strings.NewReplacer("{projectId}", url.PathEscape("docs/a"), "{id}", "job-1").Replace(e.Path())
		u, err := url.Parse("http://127.0.0.1" + p)
		if err != nil {
			t.Fatal(err)
		}
		rt, ok := parseRoute(u)
		if !ok || rt.endpoint != e.String() || rt.method != e.Method() || rt.project != "docs/a" {
			t.Errorf("%s %s: routed to %+v (%v)", e.Method(), p, rt, ok)
		}
		if _, ok := analyticsHandlers[e.String()]; e.Analytics() != ok {
			t.Errorf("%s: analytics %v, handler %v", e, e.Analytics(), ok)
		}
	}
	if _, ok := parseRoute(&url.URL{Path: "/v1/analytics/docs/unknown"}); ok {
		t.Error("an unknown analytics path is routed")
	}
}
