package deploy

import (
	"encoding/base64"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/pinnedtool"
)

// baseSet is the least the chart needs, as --set arguments.
var baseSet = []string{"--set", "projectIds={docs}", "--set", "apiKey.existingSecret=key"}

// withBase is baseSet and more helm arguments.
func withBase(more ...string) []string {
	return append(append([]string{}, baseSet...), more...)
}

// TestHelmRefusals: values the chart must refuse, each with a message that
// names what is wrong (a misspelt key, a wrong type, two monitors at once).
func TestHelmRefusals(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	expectRefusals(t, helm, []helmRefusal{
		{"both monitors", withBase("--set", "serviceMonitor.enabled=true", "--set", "podMonitor.enabled=true"), "scraped twice"},
		// values.schema.json: no unknown key, the right types and enums.
		{"misspelt key", withBase("--set", "serviceMonitor.enabeld=true"), "enabeld"},
		{"misspelt top-level key", withBase("--set", "projectId={docs}"), "projectId"},
		{"port not a number", withBase("--set", "service.port=9863x"), "port"},
		{"port out of range", withBase("--set", "service.port=98630"), "port"},
		{"service type", withBase("--set", "service.type=Clusterip"), "type"},
		{"boolean", withBase("--set", "persistence.enabled=yes"), "enabled"},
		{"scheme", withBase("--set", "serviceMonitor.scheme=HTTPS"), "scheme"},
		{"interval", withBase("--set", "serviceMonitor.interval=60"), "interval"},
		{"extra arg without dashes", withBase("--set", "extraArgs={collector.jobs}"), "extraArgs"},
		{"GOMEMLIMIT percent", withBase("--set", "goMemLimitPercent=120"), "goMemLimitPercent"},
		{"unreadable memory limit", withBase("--set", "resources.limits.memory=1e9"), "resources.limits.memory=1e9"},
		{"unknown alert disabled", withBase("--set", "prometheusRule.enabled=true", "--set", "prometheusRule.disabledAlerts={MintlifyExporterDwn}"), "MintlifyExporterDwn is no alert"},
		{"unknown alert overridden", withBase("--set", "prometheusRule.enabled=true", "--set", "prometheusRule.alertOverrides.MintlifyStale.for=1h"), "MintlifyStale is no alert"},
		{"unknown override field", withBase("--set", "prometheusRule.alertOverrides.MintlifyDataStale.fore=1h"), "fore"},
	})
}

// TestHelmPodMonitor: the PodMonitor, the ServiceMonitor's alternative.
func TestHelmPodMonitor(t *testing.T) {
	helm := knobHelm(t)
	r := renderChart(t, helm, withBase("--set", "podMonitor.enabled=true", "--set", "podMonitor.additionalLabels.release=kube-prometheus-stack")...)
	if r.podMonitor == nil || r.serviceMonitor != nil {
		t.Fatalf("rendered %v, want a PodMonitor and no ServiceMonitor", r.kinds)
	}
	if r.apiVersionsSeen["PodMonitor"] != "monitoring.coreos.com/v1" {
		t.Errorf("PodMonitor apiVersion %s", r.apiVersionsSeen["PodMonitor"])
	}
	checkMonitor(t, r.podMonitor, r.deployment)
}

// TestHelmGoMemLimit: GOMEMLIMIT follows the container's memory limit.
func TestHelmGoMemLimit(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	for _, c := range []struct {
		name string
		set  []string
		want string // "" for no GOMEMLIMIT
	}{
		{"default", nil, "204MiB"},
		{"128Mi", []string{"resources.limits.memory=128Mi"}, "102MiB"},
		{"1Gi", []string{"resources.limits.memory=1Gi"}, "819MiB"},
		{"decimal", []string{"resources.limits.memory=500M"}, "381MiB"},
		{"percent", []string{"resources.limits.memory=128Mi", "goMemLimitPercent=50"}, "64MiB"},
		{"off", []string{"goMemLimitPercent=0"}, ""},
		{"no limit", []string{"resources.limits=null"}, ""},
		{"own value", []string{"env[0].name=GOMEMLIMIT", "env[0].value=99MiB"}, "99MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.set != nil {
				t.Skip("runs helm once per case: -short renders the default only, make test every case")
			}
			var args []string
			for _, s := range c.set {
				args = append(args, "--set", s)
			}
			r := renderChart(t, helm, withBase(args...)...)
			var got []string
			for _, e := range r.deployment.Spec.Template.Spec.Containers[0].Env {
				if e.Name == "GOMEMLIMIT" {
					got = append(got, e.Value)
				}
			}
			switch {
			case c.want == "" && len(got) != 0:
				t.Errorf("GOMEMLIMIT %v, want none", got)
			case c.want != "" && (len(got) != 1 || got[0] != c.want):
				t.Errorf("GOMEMLIMIT %v, want one, %s", got, c.want)
			}
		})
	}
}

// TestHelmNetworkPolicyDefault: without ingressFrom the policy admits the
// release's namespace (and the monitoring namespace, see
// TestHelmNetworkPolicyMonitoringNamespace), not everyone (a rule without
// from admits every source).
func TestHelmNetworkPolicyDefault(t *testing.T) {
	helm := knobHelm(t)
	r := renderChart(t, helm, withBase("--set", "networkPolicy.enabled=true")...)
	np := r.networkPolicy.Spec
	if len(np.Ingress) != 1 || len(np.Ingress[0].From) != 2 {
		t.Fatalf("ingress %+v: want one rule with two peers", np.Ingress)
	}
	p := np.Ingress[0].From[0]
	if p.NamespaceSelector != nil || p.PodSelector == nil || len(p.PodSelector.MatchLabels) != 0 {
		t.Errorf("peer %+v, want podSelector: {} (every pod of the policy's namespace) and no namespaceSelector", p)
	}
}

// TestHelmNoPersistence: the opt-out puts the cache file on an emptyDir.
func TestHelmNoPersistence(t *testing.T) {
	helm := knobHelm(t)
	r := renderChart(t, helm, withBase("--set", "persistence.enabled=false")...)
	if r.pvc != nil {
		t.Error("persistence.enabled=false renders a claim")
	}
	if !slices.ContainsFunc(r.deployment.Spec.Template.Spec.Volumes, func(v volume) bool { return v.Name == "cache" && v.EmptyDir != nil }) {
		t.Error("without persistence the cache is not an emptyDir")
	}
	r = renderChart(t, helm, withBase("--set", "persistence.existingClaim=mine")...)
	if r.pvc != nil || !slices.ContainsFunc(r.deployment.Spec.Template.Spec.Volumes, func(v volume) bool {
		return v.Name == "cache" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "mine"
	}) {
		t.Error("persistence.existingClaim=mine: want the cache on that claim and no claim of the chart")
	}
}

// webConfigFile is the exporter-toolkit web configuration the chart writes.
type webConfigFile struct {
	TLSServerConfig *struct {
		CertFile   string `yaml:"cert_file"`
		KeyFile    string `yaml:"key_file"`
		MinVersion string `yaml:"min_version"`
	} `yaml:"tls_server_config"`
	BasicAuthUsers map[string]string `yaml:"basic_auth_users"`
}

// renderedWebConfig decodes the web config Secret's file strictly and
// checks that the exporter reads it from that Secret.
func renderedWebConfig(t *testing.T, r rendered) webConfigFile {
	t.Helper()
	s := r.secrets["mintlify-exporter-web-config"]
	if s == nil {
		t.Fatalf("no web config Secret among %v", slices.Collect(maps.Keys(r.secrets)))
	}
	raw, err := base64.StdEncoding.DecodeString(s.Data["web-config.yml"])
	if err != nil {
		t.Fatal(err)
	}
	var w webConfigFile
	if err := decodeStrict(raw, &w); err != nil {
		t.Fatalf("web-config.yml: %v\n%s", err, raw)
	}
	c := r.deployment.Spec.Template.Spec.Containers[0]
	file, _ := flagValue(c.Args, "web.config.file")
	if dir, name := path.Split(file); name != "web-config.yml" || !mountedFrom(r, dir, "mintlify-exporter-web-config") {
		t.Errorf("--web.config.file=%q: want web-config.yml of the Secret's volume", file)
	}
	return w
}

// mountedFrom tells whether the exporter's container mounts the Secret
// name at dir.
func mountedFrom(r rendered, dir, name string) bool {
	ps := r.deployment.Spec.Template.Spec
	for _, m := range ps.Containers[0].VolumeMounts {
		if strings.TrimSuffix(dir, "/") != m.MountPath {
			continue
		}
		for _, v := range ps.Volumes {
			if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == name {
				return true
			}
		}
	}
	return false
}

// TestHelmTLS: with a TLS Secret the exporter serves HTTPS with that
// certificate, and the probes, the ServiceMonitor and the test use https.
func TestHelmTLS(t *testing.T) {
	helm := knobHelm(t)
	r := renderChart(t, helm, withBase("--set", "webConfig.tlsSecret=exporter-tls", "--set", "webConfig.extra.tls_server_config.min_version=TLS13",
		"--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.tlsConfig.insecureSkipVerify=true",
		"--set", "serviceMonitor.authorization.credentials.name=scrape", "--set", "serviceMonitor.authorization.credentials.key=token")...)
	w := renderedWebConfig(t, r)
	if w.TLSServerConfig == nil || w.TLSServerConfig.MinVersion != "TLS13" {
		t.Fatalf("tls_server_config %+v, want min_version from webConfig.extra", w.TLSServerConfig)
	}
	for _, f := range []string{w.TLSServerConfig.CertFile, w.TLSServerConfig.KeyFile} {
		if dir, name := path.Split(f); (name != "tls.crt" && name != "tls.key") || !mountedFrom(r, dir, "exporter-tls") {
			t.Errorf("%s: not a file of the Secret exporter-tls", f)
		}
	}
	c := r.deployment.Spec.Template.Spec.Containers[0]
	for _, p := range []*probe{c.LivenessProbe, c.ReadinessProbe} {
		if p.HTTPGet == nil || p.HTTPGet.Scheme != "HTTPS" {
			t.Errorf("probe %+v, want scheme HTTPS", p.HTTPGet)
		}
	}
	ep := r.serviceMonitor.Spec.Endpoints[0]
	if ep.Scheme != "https" || ep.TLSConfig == nil || !ep.TLSConfig.InsecureSkipVerify ||
		ep.Authorization == nil || ep.Authorization.Credentials.Name != "scrape" {
		t.Errorf("ServiceMonitor endpoint %+v, want https, the tlsConfig and authorization of values", ep)
	}
	if !strings.Contains(strings.Join(r.testPod.Spec.Containers[0].Args, " "), "https://mintlify-exporter:9863/-/ready") {
		t.Errorf("the test pod does not check https: %q", r.testPod.Spec.Containers[0].Args)
	}
	// Without TLS: plain HTTP, no web config.
	r = renderChart(t, helm, withBase("--set", "podMonitor.enabled=true")...)
	if len(r.secrets) != 0 || r.podMonitor.Spec.PodMetricsEndpoints[0].Scheme != "http" {
		t.Errorf("without TLS: secrets %v, scheme %q", slices.Collect(maps.Keys(r.secrets)), r.podMonitor.Spec.PodMetricsEndpoints[0].Scheme)
	}
	if _, ok := flagValue(r.deployment.Spec.Template.Spec.Containers[0].Args, "web.config.file"); ok {
		t.Error("without TLS or basic auth: a --web.config.file")
	}
}

// TestHelmBasicAuth: basic auth users go into the web config; the probes,
// which cannot send a password, check the port; the PodMonitor sends the
// credentials of values.
func TestHelmBasicAuth(t *testing.T) {
	helm := knobHelm(t)
	const hash = "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"
	r := renderChart(t, helm, withBase("--set", "webConfig.basicAuthUsers.prometheus="+hash, "--set", "podMonitor.enabled=true",
		"--set", "podMonitor.basicAuth.username.name=scrape", "--set", "podMonitor.basicAuth.username.key=user",
		"--set", "podMonitor.basicAuth.password.name=scrape", "--set", "podMonitor.basicAuth.password.key=password")...)
	w := renderedWebConfig(t, r)
	if w.BasicAuthUsers["prometheus"] != hash || w.TLSServerConfig != nil {
		t.Errorf("web config %+v, want the user and no TLS", w)
	}
	c := r.deployment.Spec.Template.Spec.Containers[0]
	for _, p := range []*probe{c.LivenessProbe, c.ReadinessProbe} {
		if p.HTTPGet != nil || p.TCPSocket == nil || p.TCPSocket.Port != "http" {
			t.Errorf("probe %+v, want a tcpSocket probe of the port", p)
		}
	}
	ep := r.podMonitor.Spec.PodMetricsEndpoints[0]
	if ep.Scheme != "http" || ep.BasicAuth == nil || ep.BasicAuth.Password.Key != "password" {
		t.Errorf("PodMonitor endpoint %+v, want the basicAuth of values", ep)
	}
	if args := strings.Join(r.testPod.Spec.Containers[0].Args, " "); !strings.Contains(args, "401") {
		t.Errorf("the test pod does not check that /metrics asks for credentials: %s", args)
	}
}

// TestHelmTestPod: helm test checks /-/ready and /metrics through the
// Service.
func TestHelmTestPod(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	r := renderChart(t, helm, baseSet...)
	p := r.testPod
	if p == nil {
		t.Fatal("no test pod")
	}
	if p.Metadata.Annotations["helm.sh/hook"] != "test" || p.Spec.RestartPolicy != "Never" {
		t.Errorf("test pod annotations %v, restartPolicy %q", p.Metadata.Annotations, p.Spec.RestartPolicy)
	}
	if subset(r.service.Spec.Selector, p.Metadata.Labels) {
		t.Errorf("the Service's selector %v selects the test pod %v", r.service.Spec.Selector, p.Metadata.Labels)
	}
	script := strings.Join(p.Spec.Containers[0].Args, " ")
	for _, want := range []string{"http://mintlify-exporter:9863/-/ready", "http://mintlify-exporter:9863" + metricsPath, "mintlify_exporter_build_info"} {
		if !strings.Contains(script, want) {
			t.Errorf("the test's script lacks %s:\n%s", want, script)
		}
	}
	if r := renderChart(t, helm, withBase("--set", "test.enabled=false")...); r.testPod != nil {
		t.Error("test.enabled=false renders the test pod")
	}
}

// TestHelmRuleOverrides: alerts can be left out, labelled and retuned
// through values.
func TestHelmRuleOverrides(t *testing.T) {
	helm := knobHelm(t)
	r := renderChart(t, helm, withBase("--set", "prometheusRule.enabled=true",
		"--set", "prometheusRule.disabledAlerts={MintlifyPageThumbsDownRising}",
		"--set", "prometheusRule.additionalRuleLabels.cluster=prod",
		"--set", "prometheusRule.alertOverrides.MintlifyDataStale.for=30m",
		"--set", "prometheusRule.alertOverrides.MintlifyDataStale.labels.severity=critical",
		"--set", "prometheusRule.alertOverrides.MintlifyAgentJobActiveTooLong.expr=project_job_id:mintlify_agent_job_active_age:seconds > 4 * 3600")...)
	alerts := map[string]int{}
	for _, g := range r.prometheusRule.Spec.Groups {
		for _, rule := range g.Rules {
			if rule.Alert == "" {
				continue
			}
			alerts[rule.Alert]++
			if rule.Labels["cluster"] != "prod" {
				t.Errorf("%s labels %v: no additionalRuleLabels", rule.Alert, rule.Labels)
			}
			switch rule.Alert {
			case "MintlifyDataStale":
				if rule.For != "30m" || rule.Labels["severity"] != "critical" {
					t.Errorf("MintlifyDataStale for %s labels %v, want the override", rule.For, rule.Labels)
				}
			case "MintlifyAgentJobFailed":
				if rule.Labels["team"] != "docs" || rule.Labels["severity"] != "warning" {
					t.Errorf("MintlifyAgentJobFailed labels %v: the shipped labels are lost", rule.Labels)
				}
			case "MintlifyAgentJobActiveTooLong":
				if !strings.Contains(rule.Expr, "4 * 3600") {
					t.Errorf("expr %q, want the override", rule.Expr)
				}
			}
		}
	}
	if alerts["MintlifyPageThumbsDownRising"] != 0 || alerts["MintlifyExporterDown"] != 1 || len(alerts) < 10 {
		t.Errorf("alerts %v: want every shipped alert once but the disabled one", alerts)
	}
}

// helmRefusal is values helm template must refuse, with what its error says.
type helmRefusal struct {
	name string
	args []string
	want string
}

// expectRefusals runs helm template for each case, in parallel, and
// checks that it fails saying the case's want.
func expectRefusals(t *testing.T, helm string, cases []helmRefusal) {
	t.Helper()
	if testing.Short() {
		t.Skipf("runs helm once per case (%d cases); make test runs them", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"template", "x", chartDir, kubeVersion}, c.args...)
			out, err := runTool(t, ".", helm, args...)
			if err == nil || !strings.Contains(out, c.want) {
				t.Errorf("helm %s: %v, want a refusal saying %q:\n%s", strings.Join(args, " "), err, c.want, out)
			}
		})
	}
}
