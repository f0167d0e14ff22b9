package e2e

// --web.config.file: exporter-toolkit's TLS and basic auth, for real.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// selfSignedCert writes a self-signed ECDSA certificate for 127.0.0.1 and its
// key, and returns their paths and a pool trusting it.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mintlify_exporter test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestWebConfigTLSAndBasicAuth: with --web.config.file, HTTPS with the
// right user succeeds, a scrape without or with wrong credentials gets 401,
// and plain HTTP gets no metrics.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, pool := selfSignedCert(t, dir)
	const user, password = "prometheus", "correct horse battery staple"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yml")
	cfg := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  %s: %s\n", certFile, keyFile, user, hash)
	if err := os.WriteFile(webConfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := fakeWithKey(t, secretKey, 10)
	apiKey := writeKeyFile(t, filepath.Join(dir, "api-key"), secretKey)
	tlsClient := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	healthy := func(addr string) error {
		req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/-/healthy", nil)
		if err != nil {
			return err
		}
		req.SetBasicAuth(user, password)
		return answersOK(tlsClient, req)
	}
	p := startExporterWith(t, healthy, nil, "--web.config.file="+webConfig, "--mintlify.api-url="+fake.URL(),
		"--mintlify.api-key-file="+apiKey, "--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.window=1d")

	get := func(scheme, u, pw string) (int, string, error) {
		req, err := http.NewRequest(http.MethodGet, scheme+"://"+p.addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if u != "" {
			req.SetBasicAuth(u, pw)
		}
		c := tlsClient
		if scheme == "http" {
			c = httpClient
		}
		res, err := c.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, string(b), err
	}
	code, body, err := get("https", user, password)
	if err != nil || code != http.StatusOK || !strings.Contains(body, `mintlify_up{project="docs",source="visitors"} 1`) {
		t.Fatalf("HTTPS scrape with credentials: %d %v\n%.500s", code, err, body)
	}
	for _, c := range []struct{ u, pw string }{{"", ""}, {user, "wrong"}, {"root", password}} {
		code, body, err := get("https", c.u, c.pw)
		if err != nil || code != http.StatusUnauthorized || strings.Contains(body, "mintlify_") {
			t.Errorf("HTTPS scrape as %q/%q: %d %v, want 401 without metrics", c.u, c.pw, code, err)
		}
	}
	code, body, err = get("http", user, password)
	if err == nil && (code == http.StatusOK || strings.Contains(body, "mintlify_")) {
		t.Errorf("plain HTTP scrape answered %d with metrics", code)
	}
	insecure := &http.Client{Timeout: 5 * time.Second}
	if _, err := insecure.Get("https://" + p.addr + "/metrics"); err == nil {
		t.Error("a client that does not trust the certificate connected")
	}
	p.stop(t)
}
