package deploy

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type composeService struct {
	Build *struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
	} `yaml:"build"`
	Image       string            `yaml:"image"`
	Command     []string          `yaml:"command"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	Environment map[string]string `yaml:"environment"`
	DependsOn   []string          `yaml:"depends_on"`
}

type composeProject struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

// promConfig is the part of a Prometheus configuration the tests look at.
type promConfig struct {
	RuleFiles []string `yaml:"rule_files"`
	Alerting  struct {
		Alertmanagers []struct {
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"alertmanagers"`
	} `yaml:"alerting"`
	ScrapeConfigs []scrapeConfig `yaml:"scrape_configs"`
}

type scrapeConfig struct {
	JobName        string `yaml:"job_name"`
	ScrapeInterval string `yaml:"scrape_interval"`
	ScrapeTimeout  string `yaml:"scrape_timeout"`
	MetricsPath    string `yaml:"metrics_path"`
	StaticConfigs  []struct {
		Targets []string `yaml:"targets"`
	} `yaml:"static_configs"`
}

// mintlifyJob returns the scrape job of the exporter in a configuration.
func mintlifyJob(t *testing.T, name string, cfg promConfig) scrapeConfig {
	t.Helper()
	for _, sc := range cfg.ScrapeConfigs {
		if sc.JobName == jobName {
			return sc
		}
	}
	t.Fatalf("%s: no scrape job %q", name, jobName)
	return scrapeConfig{}
}

// checkScrapeJob checks the exporter's scrape job: interval, timeout, path,
// and targets on the exporter's port. It returns the targets' hosts.
func checkScrapeJob(t *testing.T, name string, sc scrapeConfig) []string {
	t.Helper()
	if sc.ScrapeInterval != "60s" || sc.ScrapeTimeout != "30s" {
		t.Errorf("%s: scrape_interval %q and scrape_timeout %q, want 60s and 30s", name, sc.ScrapeInterval, sc.ScrapeTimeout)
	}
	if sc.MetricsPath != metricsPath {
		t.Errorf("%s: metrics_path %q, want %s", name, sc.MetricsPath, metricsPath)
	}
	var hosts []string
	for _, st := range sc.StaticConfigs {
		for _, target := range st.Targets {
			host, port, err := net.SplitHostPort(target)
			if err != nil || port != listenPort {
				t.Errorf("%s: target %q is not on port %s", name, target, listenPort)
			}
			hosts = append(hosts, host)
		}
	}
	if len(hosts) == 0 {
		t.Errorf("%s: job %s has no target", name, jobName)
	}
	return hosts
}

// composeMount is one bind mount or named volume of a compose service.
type composeMount struct {
	Source string // a path relative to this package's directory, or a volume name
	Bind   bool
	Target string
}

// mounts parses a service's short-syntax volumes.
func (s composeService) mounts(t *testing.T) []composeMount {
	t.Helper()
	var out []composeMount
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || len(parts) > 3 {
			t.Fatalf("compose: cannot parse volume %q", v)
		}
		m := composeMount{Source: parts[0], Target: parts[1]}
		if strings.HasPrefix(m.Source, ".") || strings.HasPrefix(m.Source, "/") {
			m.Bind = true
			m.Source = filepath.Join(filepath.Dir(composeFile), m.Source)
		}
		out = append(out, m)
	}
	return out
}

// hostPath returns the host path mounted at target (or at a directory
// holding it), or "" when nothing is mounted there.
func (s composeService) hostPath(t *testing.T, target string) string {
	t.Helper()
	for _, m := range s.mounts(t) {
		if !m.Bind {
			continue
		}
		if target == m.Target {
			return m.Source
		}
		if rest, ok := strings.CutPrefix(target, m.Target+"/"); ok {
			return filepath.Join(m.Source, rest)
		}
	}
	return ""
}

// sameFile reports whether two paths name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func loadCompose(t *testing.T) composeProject {
	t.Helper()
	var c composeProject
	readYAML(t, composeFile, &c)
	return c
}

// service returns a compose service or fails the test.
func (c composeProject) service(t *testing.T, name string) composeService {
	t.Helper()
	s, ok := c.Services[name]
	if !ok {
		t.Fatalf("compose: no service %q", name)
	}
	return s
}

// TestComposeReferences checks that every file the compose stack mounts or
// builds from exists and every named volume or dependency is declared.
func TestComposeReferences(t *testing.T) {
	c := loadCompose(t)
	for name, s := range c.Services {
		if s.Build != nil {
			ctx := filepath.Join(filepath.Dir(composeFile), s.Build.Context)
			df := s.Build.Dockerfile
			if df == "" {
				df = "Dockerfile"
			}
			if _, err := os.Stat(filepath.Join(ctx, df)); err != nil {
				t.Errorf("compose: %s: %v", name, err)
			}
		} else if s.Image == "" {
			t.Errorf("compose: %s has neither build nor image", name)
		}
		for _, m := range s.mounts(t) {
			if m.Bind {
				if _, err := os.Stat(m.Source); err != nil {
					t.Errorf("compose: %s mounts %v", name, err)
				}
			} else if _, ok := c.Volumes[m.Source]; !ok {
				t.Errorf("compose: %s uses the undeclared volume %q", name, m.Source)
			}
		}
		for _, d := range s.DependsOn {
			if _, ok := c.Services[d]; !ok {
				t.Errorf("compose: %s depends on the unknown service %q", name, d)
			}
		}
	}
}

func TestComposeExporter(t *testing.T) {
	c := loadCompose(t)
	s := c.service(t, "mintlify-exporter")
	if s.Build == nil || !sameFile(filepath.Join(filepath.Dir(composeFile), s.Build.Context, "Dockerfile"), dockerfile) {
		t.Error("compose: mintlify-exporter is not built from the repository's Dockerfile")
	}
	if !slices.Contains(s.Command, "--demo") {
		t.Errorf("compose: mintlify-exporter runs %q, want --demo", s.Command)
	}
	if !slices.Contains(s.Ports, listenPort+":"+listenPort) {
		t.Errorf("compose: mintlify-exporter publishes %q, want %s:%s", s.Ports, listenPort, listenPort)
	}
}

// TestComposePrometheus checks the Prometheus of the compose stack: its
// configuration (also with promtool), the rules it loads, the targets it
// scrapes and the Alertmanager it sends to.
func TestComposePrometheus(t *testing.T) {
	c := loadCompose(t)
	s := c.service(t, "prometheus")
	cfgPath := s.hostPath(t, "/etc/prometheus/prometheus.yml")
	if cfgPath == "" || !slices.Contains(s.Command, "--config.file=/etc/prometheus/prometheus.yml") {
		t.Fatal("compose: prometheus does not load a mounted /etc/prometheus/prometheus.yml")
	}
	var cfg promConfig
	readYAML(t, cfgPath, &cfg)
	if len(cfg.RuleFiles) == 0 {
		t.Error("compose: prometheus loads no rules")
	}
	local := string(readFile(t, cfgPath))
	for _, rf := range cfg.RuleFiles {
		host := s.hostPath(t, rf)
		if !sameFile(host, rulesFile) {
			t.Errorf("compose: rule file %s is not the repository's %s", rf, rulesFile)
			continue
		}
		abs, err := filepath.Abs(host)
		if err != nil {
			t.Fatal(err)
		}
		local = strings.ReplaceAll(local, rf, abs)
	}
	for _, host := range checkScrapeJob(t, cfgPath, mintlifyJob(t, cfgPath, cfg)) {
		if e, ok := c.Services[host]; !ok || e.Build == nil {
			t.Errorf("compose: prometheus scrapes %s, which is not the exporter's service", host)
		}
	}
	n := 0
	for _, am := range cfg.Alerting.Alertmanagers {
		for _, st := range am.StaticConfigs {
			for _, target := range st.Targets {
				n++
				host, _, err := net.SplitHostPort(target)
				if err != nil {
					t.Errorf("compose: alertmanager target %q: %v", target, err)
					continue
				}
				a := c.service(t, host)
				if !sameFile(a.hostPath(t, "/etc/alertmanager/alertmanager.yml"), alertmanagerFile) {
					t.Errorf("compose: %s does not run the example %s", host, alertmanagerFile)
				}
			}
		}
	}
	if n == 0 {
		t.Error("compose: prometheus sends alerts nowhere")
	}
	promtool := lookTool(t, "promtool", "prometheus")
	path := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(path, []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runTool(t, ".", promtool, "check", "config", path); err != nil {
		t.Errorf("promtool check config %s: %v\n%s", cfgPath, err, out)
	}
}

// TestComposeGrafana checks that Grafana is provisioned with a Prometheus
// data source of the stack and with the repository's dashboards directory.
func TestComposeGrafana(t *testing.T) {
	c := loadCompose(t)
	s := c.service(t, "grafana")
	dsDir := s.hostPath(t, "/etc/grafana/provisioning/datasources")
	dbDir := s.hostPath(t, "/etc/grafana/provisioning/dashboards")
	if dsDir == "" || dbDir == "" {
		t.Fatal("compose: grafana's provisioning directories are not mounted")
	}
	dsFiles, _ := filepath.Glob(filepath.Join(dsDir, "*.yml"))
	if len(dsFiles) == 0 {
		t.Fatalf("%s: no data source file", dsDir)
	}
	for _, f := range dsFiles {
		var ds struct {
			Datasources []struct {
				Type string `yaml:"type"`
				URL  string `yaml:"url"`
			} `yaml:"datasources"`
		}
		readYAML(t, f, &ds)
		for _, d := range ds.Datasources {
			u, err := url.Parse(d.URL)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if _, ok := c.Services[u.Hostname()]; d.Type != "prometheus" || !ok {
				t.Errorf("%s: data source %s at %s is not the stack's Prometheus", f, d.Type, d.URL)
			}
		}
	}
	dbFiles, _ := filepath.Glob(filepath.Join(dbDir, "*.yml"))
	if len(dbFiles) == 0 {
		t.Fatalf("%s: no dashboard provider", dbDir)
	}
	for _, f := range dbFiles {
		var p struct {
			Providers []struct {
				Options struct {
					Path string `yaml:"path"`
				} `yaml:"options"`
			} `yaml:"providers"`
		}
		readYAML(t, f, &p)
		for _, pr := range p.Providers {
			if !sameFile(s.hostPath(t, pr.Options.Path), dashboardsDir) {
				t.Errorf("%s: provider path %s is not the repository's dashboards directory", f, pr.Options.Path)
			}
		}
	}
	if home := s.Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]; home != "" {
		if _, err := os.Stat(s.hostPath(t, home)); err != nil {
			t.Errorf("compose: grafana's home dashboard %s: %v", home, err)
		}
	}
}

func TestScrapeExample(t *testing.T) {
	var cfg promConfig
	readYAML(t, scrapeFile, &cfg)
	checkScrapeJob(t, scrapeFile, mintlifyJob(t, scrapeFile, cfg))
	promtool := lookTool(t, "promtool", "prometheus")
	mustRunTool(t, ".", promtool, "check", "config", scrapeFile)
}
