package engine

import (
	"context"
	"io"
	stdlog "log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// certificateError is what the client returns for a fake API behind TLS
// with a certificate the system does not trust (an intercepting proxy).
func certificateError(t *testing.T) error {
	t.Helper()
	fake := mintlifytest.NewServer()
	t.Cleanup(fake.Close)
	srv := httptest.NewUnstartedServer(fake.Handler())
	srv.Config.ErrorLog = stdlog.New(io.Discard, "", 0) // the refused handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: srv.URL, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PathsPage(context.Background(), client.EndpointVisitors, "docs", client.PathsQuery{Limit: 1})
	if !client.IsCertificateError(err) {
		t.Fatalf("error %v, want a CertificateError", err)
	}
	return err
}

// TestCertificateFailureLogSaysWhatToDo: a refresh refused over the API's
// certificate logs one line for the engine that names the trust store,
// not the connect-failure line about the network.
func TestCertificateFailureLogSaysWhatToDo(t *testing.T) {
	certErr := certificateError(t)
	var src *memSource
	r := newRig(t, rigOptions{perHour: 100, projects: []string{"docs", "blog"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("one", b); src.fixed = 1; return src })
	src.setFail("docs", "1d", certErr)
	src.setFail("blog", "1d", certErr)
	r.e.Start()
	r.waitFor("both failed refreshes", func() bool { return !r.st.Up("docs", "one") && !r.st.Up("blog", "one") })

	logs := r.logs.String()
	if n := strings.Count(logs, "trust store (SSL_CERT_FILE)"); n != 1 {
		t.Errorf("%d lines naming the trust store, want 1 for the engine:\n%s", n, logs)
	}
	if !strings.Contains(logs, "certificate signed by unknown authority") {
		t.Errorf("the line does not give the certificate's problem:\n%s", logs)
	}
	if strings.Contains(logs, "127.0.0.1") || strings.Contains(logs, "limit=") {
		t.Errorf("the line quotes the request's URL:\n%s", logs)
	}
	if n := r.logLines("the network"); n != 0 {
		t.Errorf("a certificate failure logged as a network failure:\n%s", logs)
	}
}
