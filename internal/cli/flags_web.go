package cli

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
	"gopkg.in/yaml.v3"

	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

// webFlags are the --web.* flags: exporter-toolkit's (listen addresses,
// web configuration, systemd socket) and the exporter's own.
type webFlags struct {
	toolkit       *web.FlagConfig
	telemetryPath string
	maxRequests   int
	basicAuth     bool // the web configuration sets basic_auth_users (check)
}

// defaultAddress is the exporter's port, as registered in Prometheus'
// default port allocations.
const defaultAddress = ":9863"

func (w *webFlags) register(app *kingpin.Application) {
	w.toolkit = kingpinflag.AddFlags(app, defaultAddress)
	app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&w.telemetryPath)
	intVar(app.Flag("web.max-requests", "Maximum number of concurrent scrape requests; the excess is answered 503. 0 means no limit.").Default("40"), &w.maxRequests)
}

func (w *webFlags) check() error {
	if w.maxRequests < 0 {
		return fmt.Errorf("--web.max-requests must be 0 (no limit) or more, not %d", w.maxRequests)
	}
	if err := exporter.CheckTelemetryPath(w.telemetryPath); err != nil {
		return fmt.Errorf("--web.telemetry-path=%q: %v", w.telemetryPath, err)
	}
	// --web.listen-address: HOST:PORT with a numeric port (vsock:// addresses
	// are left to exporter-toolkit).
	for _, a := range *w.toolkit.WebListenAddresses {
		if *w.toolkit.WebSystemdSocket || strings.HasPrefix(a, "vsock://") {
			continue
		}
		if a == "" {
			return errors.New("--web.listen-address is empty: give HOST:PORT or :PORT, such as :9863")
		}
		_, port, err := net.SplitHostPort(a)
		if err != nil {
			return fmt.Errorf("--web.listen-address=%q: want HOST:PORT or :PORT, such as :9863", a)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("--web.listen-address=%q: the port must be a number from 0 to 65535", a)
		}
	}
	if p := *w.toolkit.WebConfigFile; p != "" {
		var err error
		if w.basicAuth, err = checkWebConfigFiles(p); err != nil {
			return fmt.Errorf("--web.config.file=%s: %v", p, err)
		}
		if err := web.Validate(p); err != nil {
			return fmt.Errorf("--web.config.file=%s: %v", p, oneLine(err))
		}
	}
	return nil
}

// checkWebConfigFiles checks, before exporter-toolkit opens any, the web
// configuration file and the TLS files it names (relative to its directory):
// regular files of a bounded size. It reports whether basic_auth_users is set.
func checkWebConfigFiles(path string) (bool, error) {
	b, err := readSmallFile(path, maxWebConfigBytes)
	if err != nil {
		return false, err
	}
	var c struct {
		TLS   map[string]any    `yaml:"tls_server_config"`
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if yaml.Unmarshal(b, &c) != nil {
		return false, nil // web.Validate says what is wrong
	}
	for _, field := range []string{"cert_file", "key_file", "client_ca_file"} {
		p, _ := c.TLS[field].(string)
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		if err := checkFile(p, maxWebConfigBytes, false); err != nil {
			return false, fmt.Errorf("tls_server_config.%s %s %v", field, p, err)
		}
	}
	return len(c.Users) > 0, nil
}
