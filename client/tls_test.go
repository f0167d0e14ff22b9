package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// TestCertificateFailuresAreNotRetried: a certificate the client does not
// trust (an intercepting proxy), one for another name, and a server that
// answers the handshake with a certificate alert (it wants a client
// certificate) fail at once: one attempt, not the retry policy's four,
// taken back from the budget (nothing was written), with one line naming
// --mintlify.api-url and the trust store.
func TestCertificateFailuresAreNotRetried(t *testing.T) {
	ds, r := generated(10)
	fake := apitest.NewRig(t, testClock(), mintlifytest.WithProject(testProject, ds)).Fake
	tlsSrv := httptest.NewTLSServer(fake.Handler())
	t.Cleanup(tlsSrv.Close)
	trusted := x509.NewCertPool()
	trusted.AddCert(tlsSrv.Certificate())
	mtls := httptest.NewUnstartedServer(fake.Handler())
	mtls.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	mtls.StartTLS()
	t.Cleanup(mtls.Close)

	for _, tc := range []struct {
		name, url string
		hc        *http.Client
		reason    string
		// either: under TLS 1.3 the client's handshake ends before the
		// server checks the client's certificate, so the request may be
		// written before the alert comes (then it is not taken back) or
		// not, as the goroutines run.
		either bool
	}{
		{"unknown authority", tlsSrv.URL, nil, "unknown authority", false},
		{"another name", strings.Replace(tlsSrv.URL, "127.0.0.1", "localhost", 1),
			&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trusted}}}, "localhost", false},
		{"certificate alert", mtls.URL,
			&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}, "certificate required", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unsent := 0
			h := newHarness(t, func(c *client.Config) {
				c.BaseURL, c.HTTPClient = tc.url, tc.hc
				c.Hooks.Unsent = func(client.Endpoint) { unsent++ }
			})
			_, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Range: r, Limit: 10})
			if !client.IsCertificateError(err) {
				t.Fatalf("error %v, want a CertificateError", err)
			}
			msg := err.Error()
			for _, want := range []string{"--mintlify.api-url", "trust store", "not retried", tc.reason} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, "dateFrom") {
				t.Errorf("error %q is not one line without the request's URL", msg)
			}
			if n := len(h.codes()); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
			switch connect := client.IsConnectFailure(err); {
			case unsent > 1 || (unsent == 1) != connect:
				t.Errorf("taken back %d times, IsConnectFailure %v: a request is taken back once exactly when it is a connect failure", unsent, connect)
			case !tc.either && !connect:
				t.Errorf("not taken back, but the handshake failed before anything was written: %v", err)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("the API got %d requests", n)
			}
		})
	}
}
