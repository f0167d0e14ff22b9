package exporter_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// TestKeyFileRotationIsExported rotates the key file to garbage and back,
// and checks the metrics and the log: the failure is logged once and
// exported, the recovery is logged and exported.
func TestKeyFileRotationIsExported(t *testing.T) {
	fake := apitest.Fake(t)
	p := filepath.Join(t.TempDir(), "api-key")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p+".new", []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	write(mintlifytest.DefaultKey + "\n")
	fk, err := client.NewFileKey(p)
	if err != nil {
		t.Fatal(err)
	}
	var logs logbuf.Buffer
	x, err := exporter.New(exporter.Config{APIURL: fake.URL(), Key: fk, Timeout: 5e9, Projects: []string{"docs"},
		RequestsPerHour: 90, Logger: log.NewLogfmtLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	scrape := func() string {
		t.Helper()
		rec := httptest.NewRecorder()
		x.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		b, _ := io.ReadAll(rec.Body)
		return string(b)
	}
	want := func(body string, lines ...string) {
		t.Helper()
		for _, l := range lines {
			if !strings.Contains(body, "\n"+l+"\n") {
				t.Errorf("metrics lack %q", l)
			}
		}
	}
	want(scrape(), "mintlify_api_key_file_ok 1", "mintlify_api_key_file_reload_failures_total 0")

	write("sk_live_GARBAGEsecret\n")
	body := scrape()
	scrape()
	want(body, "mintlify_api_key_file_ok 0", "mintlify_api_key_file_reload_failures_total 1")
	if n := strings.Count(logs.String(), "level=error"); n != 1 {
		t.Errorf("%d error lines, want 1:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "GARBAGEsecret") || strings.Contains(body, "GARBAGEsecret") {
		t.Error("the file's content shows")
	}

	write(mintlifytest.DefaultKey + "\n")
	want(scrape(), "mintlify_api_key_file_ok 1", "mintlify_api_key_file_reload_failures_total 1")
	if !strings.Contains(logs.String(), "usable again") {
		t.Errorf("the recovery is not logged:\n%s", logs.String())
	}
}
