package deploy

// The chart's escape hatches (volumes, environment, placement, the
// ServiceAccount, labels, monitor and rule extras), the values it refuses
// because the pod or the scrape could not work, and the NetworkPolicy's
// monitoring namespace.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// knobValues sets every escape hatch of issue 39 at once.
const knobValues = `projectIds: [acme-docs]
apiKey: {existingSecret: key}
commonLabels: {cost-centre: docs-42}
serviceAccount:
  annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::123456789012:role/mintlify"}
extraEnvFrom:
  - configMapRef: {name: corporate-proxy}
extraVolumes:
  - name: corporate-ca
    configMap: {name: corporate-ca-bundle}
extraVolumeMounts:
  - name: corporate-ca
    mountPath: /etc/ssl/certs/ca-certificates.crt
    subPath: ca-certificates.crt
    readOnly: true
priorityClassName: monitoring
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
revisionHistoryLimit: 3
serviceMonitor:
  enabled: true
  jobLabel: app.kubernetes.io/name
  targetLabels: [tier]
prometheusRule:
  enabled: true
  rules:
    - alert: MintlifyDocsDown
      expr: 'mintlify_visitors_deduplicated{job="mintlify", window="1d"} == 0'
      for: 6h
      labels: {severity: critical}
    - record: project:mintlify_views:sum
      expr: 'sum by (project) (mintlify_views{job="mintlify", window="1d"})'
`

// TestHelmEscapeHatches: a CA bundle, a proxy's environment, a
// PriorityClass, a topology spread, an IRSA ServiceAccount, common labels,
// the revision history, the ServiceMonitor's job and target labels and
// rules of one's own render where Kubernetes and the operator read them.
func TestHelmEscapeHatches(t *testing.T) {
	helm := knobHelm(t)
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(knobValues), 0o600); err != nil {
		t.Fatal(err)
	}
	r := renderChart(t, helm, "--values", values)
	d := r.deployment
	checkDeployment(t, d, "key")
	ps := d.Spec.Template.Spec
	c := ps.Containers[0]
	if !slices.ContainsFunc(ps.Volumes, func(v volume) bool {
		return v.Name == "corporate-ca" && v.ConfigMap != nil && v.ConfigMap.Name == "corporate-ca-bundle"
	}) {
		t.Errorf("volumes %+v: no corporate-ca from the ConfigMap", ps.Volumes)
	}
	if !slices.ContainsFunc(c.VolumeMounts, func(m struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		SubPath   string `yaml:"subPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	}) bool {
		return m.Name == "corporate-ca" && m.MountPath == "/etc/ssl/certs/ca-certificates.crt" && m.SubPath == "ca-certificates.crt" && m.ReadOnly
	}) {
		t.Errorf("volume mounts %+v: no corporate-ca bundle", c.VolumeMounts)
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].ConfigMapRef == nil || c.EnvFrom[0].ConfigMapRef.Name != "corporate-proxy" {
		t.Errorf("envFrom %+v, want the ConfigMap corporate-proxy", c.EnvFrom)
	}
	if ps.PriorityClassName != "monitoring" {
		t.Errorf("priorityClassName %q", ps.PriorityClassName)
	}
	if len(ps.TopologySpreadConstraints) != 1 {
		t.Fatalf("topologySpreadConstraints %+v", ps.TopologySpreadConstraints)
	}
	// A constraint without a labelSelector counts the exporter's pods.
	if tsc := ps.TopologySpreadConstraints[0]; tsc.TopologyKey != "topology.kubernetes.io/zone" || tsc.MaxSkew != 1 ||
		len(tsc.LabelSelector.MatchLabels) == 0 || !subset(tsc.LabelSelector.MatchLabels, d.Spec.Template.Metadata.Labels) {
		t.Errorf("topology spread %+v: want the pod's own selector", tsc)
	}
	if d.Spec.RevisionHistoryLimit == nil || *d.Spec.RevisionHistoryLimit != 3 {
		t.Errorf("revisionHistoryLimit %v, want 3", d.Spec.RevisionHistoryLimit)
	}
	// The ServiceAccount: the chart's, with the IRSA annotation, no token.
	sa := r.serviceAccount
	if sa == nil {
		t.Fatalf("no ServiceAccount among %v", r.kinds)
	}
	if ps.ServiceAccountName != sa.Metadata.Name || sa.Metadata.Annotations["eks.amazonaws.com/role-arn"] == "" {
		t.Errorf("pod's serviceAccountName %q, ServiceAccount %+v", ps.ServiceAccountName, sa.Metadata)
	}
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Errorf("ServiceAccount automountServiceAccountToken %v, want false", sa.AutomountServiceAccountToken)
	}
	// commonLabels on every resource and on the pod, not in the selector
	// (a Deployment's selector cannot change).
	for kind, labels := range map[string]map[string]string{
		"Deployment": d.Metadata.Labels, "pod": d.Spec.Template.Metadata.Labels, "Service": r.service.Metadata.Labels,
		"ServiceAccount": sa.Metadata.Labels, "ServiceMonitor": r.serviceMonitor.Metadata.Labels, "PrometheusRule": r.prometheusRule.Metadata.Labels,
	} {
		if labels["cost-centre"] != "docs-42" {
			t.Errorf("%s labels %v: no commonLabels", kind, labels)
		}
	}
	if _, ok := d.Spec.Selector.MatchLabels["cost-centre"]; ok {
		t.Error("commonLabels are in the Deployment's selector")
	}
	sm := r.serviceMonitor.Spec
	if sm.JobLabel != "app.kubernetes.io/name" || !slices.Equal(sm.TargetLabels, []string{"tier"}) {
		t.Errorf("ServiceMonitor jobLabel %q targetLabels %v", sm.JobLabel, sm.TargetLabels)
	}
	checkMonitorJob(t, r.serviceMonitor)
	// Rules of one's own: a group of their own after the shipped ones.
	groups := r.prometheusRule.Spec.Groups
	last := groups[len(groups)-1]
	if last.Name != "mintlify.extra" || len(last.Rules) != 2 || last.Rules[0].Alert != "MintlifyDocsDown" || last.Rules[0].For != "6h" ||
		last.Rules[0].Labels["severity"] != "critical" || last.Rules[1].Record != "project:mintlify_views:sum" {
		t.Errorf("last group %+v, want mintlify.extra with the two rules of values", last)
	}
	if len(groups) < 5 {
		t.Errorf("%d groups: the shipped ones are lost", len(groups))
	}

	// Defaults: a ServiceAccount of the chart without a token, 10 old
	// ReplicaSets; serviceAccount.create=false uses the one named.
	r = renderChart(t, helm, baseSet...)
	if r.serviceAccount == nil || r.deployment.Spec.Template.Spec.ServiceAccountName != r.serviceAccount.Metadata.Name {
		t.Errorf("default: ServiceAccount %+v, pod's %q", r.serviceAccount, r.deployment.Spec.Template.Spec.ServiceAccountName)
	}
	if h := r.deployment.Spec.RevisionHistoryLimit; h == nil || *h != 10 {
		t.Errorf("default revisionHistoryLimit %v, want 10", h)
	}
	r = renderChart(t, helm, withBase("--set", "serviceAccount.create=false", "--set", "serviceAccount.name=irsa-mintlify")...)
	if r.serviceAccount != nil || r.deployment.Spec.Template.Spec.ServiceAccountName != "irsa-mintlify" {
		t.Errorf("serviceAccount.create=false: ServiceAccount %+v, pod's %q", r.serviceAccount, r.deployment.Spec.Template.Spec.ServiceAccountName)
	}
}

// checkMonitorJob checks that a monitor's relabelings set the job the
// shipped rules select.
func checkMonitorJob(t *testing.T, m *monitor) {
	t.Helper()
	eps := append(m.Spec.Endpoints, m.Spec.PodMetricsEndpoints...)
	if len(eps) != 1 || !slices.ContainsFunc(eps[0].Relabelings, func(r relabeling) bool { return r.TargetLabel == "job" && r.Replacement == jobName }) {
		t.Errorf("%s: endpoints %+v: the rules select job=%q", m.Kind, eps, jobName)
	}
}

// TestHelmRefusesBrokenPods: values under which the exporter would not
// start, or no scrape or rule would work, fail helm template with what to
// change; every flag the chart sets itself is refused in extraArgs.
func TestHelmRefusesBrokenPods(t *testing.T) {
	helm := knobHelm(t)
	const hash = "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"
	cases := []helmRefusal{
		{"http monitor before TLS", withBase("--set", "webConfig.tlsSecret=exporter-tls", "--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.scheme=http"),
			"serviceMonitor.scheme=http, but the exporter serves HTTPS only"},
		{"http pod monitor before TLS", withBase("--set", "webConfig.tlsSecret=exporter-tls", "--set", "podMonitor.enabled=true", "--set", "podMonitor.scheme=http"),
			"podMonitor.scheme=http, but the exporter serves HTTPS only"},
		{"https monitor before HTTP", withBase("--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.scheme=https"),
			"serviceMonitor.scheme=https, but the exporter serves plain HTTP"},
		{"relabelings null", withBase("--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.relabelings=null"),
			`serviceMonitor.relabelings sets no job label: the shipped rules and dashboards select job="mintlify"`},
		{"relabelings without job", withBase("--set", "podMonitor.enabled=true", "--set", "podMonitor.relabelings[0].action=labeldrop", "--set", "podMonitor.relabelings[0].regex=pod"),
			"podMonitor.relabelings sets no job label"},
		{"web config twice", withBase("--set", "webConfig.basicAuthUsers.prometheus="+hash, "--set", "extraArgs={--web.config.file=/etc/mine.yml}"),
			"extraArgs: --web.config.file is a flag the chart sets itself"},
		{"empty monitoring namespace selector", withBase("--set", "networkPolicy.enabled=true", "--set", "networkPolicy.monitoringNamespaceSelector=null"),
			"networkPolicy.monitoringNamespaceSelector is empty"},
		// values.schema.json: the new values are typed and closed.
		{"service account key", withBase("--set", "serviceAccount.anotations.a=b"), "anotations"},
		{"spread without key", withBase("--set", "topologySpreadConstraints[0].maxSkew=1", "--set", "topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule"), "topologyKey"},
		{"relative mount", withBase("--set", "extraVolumeMounts[0].name=ca", "--set", "extraVolumeMounts[0].mountPath=etc/ssl"), "mountPath"},
		{"volume without source", withBase("--set", "extraVolumes[0].name=ca"), "extraVolumes"},
		{"rule neither alert nor record", withBase("--set", "prometheusRule.rules[0].expr=up"), "rules"},
		{"env from misspelt", withBase("--set", "extraEnvFrom[0].configMapRf.name=proxy"), "configMapRf"},
		{"revision history", withBase("--set", "revisionHistoryLimit=-1"), "revisionHistoryLimit"},
	}
	// Every flag of the chart's own args, read from a rendering, repeated
	// in extraArgs (--flag=value), is refused naming the flag.
	r := renderChart(t, helm, withBase("--set", "webConfig.tlsSecret=exporter-tls")...)
	flagName := regexp.MustCompile(`^--([a-z][-a-z.]*)=`)
	own := map[string]bool{}
	for _, a := range r.deployment.Spec.Template.Spec.Containers[0].Args {
		m := flagName.FindStringSubmatch(a)
		if m == nil {
			t.Fatalf("the chart's argument %q is not --flag=value", a)
		}
		own[m[1]] = true
	}
	if len(own) != 5 {
		t.Errorf("the chart sets %v, want its 5 flags (the test refuses each)", own)
	}
	for name := range own {
		cases = append(cases, helmRefusal{"repeated --" + name,
			withBase("--set", "webConfig.tlsSecret=exporter-tls", "--set", "extraArgs={--"+name+"=/x}"),
			"extraArgs: --" + name + " is a flag the chart sets itself"})
	}
	// What stays allowed: a repeatable flag of the exporter's own given
	// twice, a --web.config.file of one's own when the chart writes none,
	// the job named by the Service's label instead of a relabeling.
	for _, args := range [][]string{
		withBase("--set", "extraArgs={--analytics.window=1d,--analytics.window=7d}"),
		withBase("--set", "extraArgs={--web.config.file=/etc/mine/web.yml}", "--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.scheme=https"),
		withBase("--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.relabelings=null", "--set", "serviceMonitor.jobLabel=mintlify-job"),
	} {
		renderChart(t, helm, args...)
	}
	expectRefusals(t, helm, cases)
}

// TestHelmNetworkPolicyMonitoringNamespace: by default the policy admits
// the release's namespace and the monitoring namespace, by the label
// Kubernetes puts on every namespace; the switch and a pod selector narrow
// it; without any peer for a Prometheus elsewhere, the notes warn.
func TestHelmNetworkPolicyMonitoringNamespace(t *testing.T) {
	helm := knobHelm(t)
	r := renderChart(t, helm, withBase("--set", "networkPolicy.enabled=true", "--set", "networkPolicy.monitoringPodSelector.matchLabels.app\\.kubernetes\\.io/name=prometheus")...)
	from := r.networkPolicy.Spec.Ingress[0].From
	if len(from) != 2 {
		t.Fatalf("peers %+v, want the release's namespace and the monitoring namespace", from)
	}
	if p := from[1]; p.NamespaceSelector == nil || p.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "monitoring" ||
		p.PodSelector == nil || p.PodSelector.MatchLabels["app.kubernetes.io/name"] != "prometheus" {
		t.Errorf("peer %+v, want namespace kubernetes.io/metadata.name=monitoring, pods app.kubernetes.io/name=prometheus", p)
	}
	r = renderChart(t, helm, withBase("--set", "networkPolicy.enabled=true", "--set", "networkPolicy.monitoringNamespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=observability")...)
	if p := r.networkPolicy.Spec.Ingress[0].From[1]; p.NamespaceSelector == nil || p.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "observability" {
		t.Errorf("peer %+v, want the namespace observability", p)
	}

	r = renderChart(t, helm, withBase("--set", "networkPolicy.enabled=true", "--set", "networkPolicy.allowMonitoringNamespace=false")...)
	if from := r.networkPolicy.Spec.Ingress[0].From; len(from) != 1 || from[0].NamespaceSelector != nil {
		t.Errorf("allowMonitoringNamespace=false: peers %+v, want the release's namespace only", from)
	}

	if testing.Short() {
		t.Skip("the notes' warning runs helm once per case: make test runs it")
	}
	const warning = "WARNING: the NetworkPolicy admits only the pods of namespace apps"
	for _, c := range []struct {
		set  []string
		warn bool
	}{
		{[]string{"networkPolicy.enabled=true"}, false},
		{[]string{"networkPolicy.enabled=true", "networkPolicy.allowMonitoringNamespace=false"}, true},
		{[]string{"networkPolicy.enabled=true", "networkPolicy.allowMonitoringNamespace=false", "networkPolicy.ingressFrom[0].namespaceSelector.matchLabels.team=obs"}, false},
		{[]string{"networkPolicy.allowMonitoringNamespace=false"}, false},
	} {
		notes := renderNotes(t, helm, c.set...)
		if strings.Contains(notes, warning) != c.warn {
			t.Errorf("--set %v: notes warn %v, want %v:\n%s", c.set, !c.warn, c.warn, notes)
		}
	}
}

// renderNotes renders the chart's NOTES.txt in namespace apps with baseSet
// and set. helm template leaves the notes out, and helm install --dry-run
// asks a cluster for its version: it renders a copy of the chart whose
// NOTES.txt is a named template, written into a document of its own.
func renderNotes(t *testing.T, helm string, set ...string) string {
	t.Helper()
	chart := filepath.Join(t.TempDir(), "mintlify-exporter")
	if err := os.CopyFS(chart, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	templates := filepath.Join(chart, "templates")
	notes := readFile(t, filepath.Join(templates, "NOTES.txt"))
	if err := os.Remove(filepath.Join(templates, "NOTES.txt")); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"_notes_under_test.tpl": `{{- define "notes-under-test" -}}` + string(notes) + `{{- end }}`,
		"notes_under_test.yaml": "kind: Notes\ntext: {{ include \"notes-under-test\" . | toJson }}\n",
	} {
		if err := os.WriteFile(filepath.Join(templates, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"template", "x", chart, "--namespace", "apps", kubeVersion, "--show-only", "templates/notes_under_test.yaml"}
	args = append(args, baseSet...)
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var doc struct {
		Kind string `yaml:"kind"`
		Text string `yaml:"text"`
	}
	if err := decodeStrict([]byte(mustRunTool(t, ".", helm, args...)), &doc); err != nil || doc.Text == "" {
		t.Fatalf("the notes do not render: %v", err)
	}
	return doc.Text
}

// TestHelmReadmeDocumentsValues: every value of values.yaml is in the
// chart README's table or text, by its path or a parent's (`podMonitor.*`).
func TestHelmReadmeDocumentsValues(t *testing.T) {
	var values map[string]any
	if err := yaml.Unmarshal(readFile(t, filepath.Join(chartDir, "values.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	// The README's code spans, outside its fenced examples.
	documented := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(string(readFile(t, filepath.Join(chartDir, "README.md"))), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(line, -1) {
			documented[strings.TrimSuffix(m[1], ".*")] = true
		}
	}
	var paths []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			paths = append(paths, prefix)
			return
		}
		for k, sub := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			walk(p, sub)
		}
	}
	walk("", values)
	if len(paths) < 60 {
		t.Fatalf("%d values found, want the chart's 60 or more", len(paths))
	}
	for _, p := range paths {
		found := false
		for q := p; q != "" && !found; {
			found = documented[q]
			i := strings.LastIndex(q, ".")
			if i < 0 {
				break
			}
			q = q[:i]
		}
		if !found {
			t.Errorf("values.yaml's %s is not in the chart's README.md (nor any value above it)", p)
		}
	}
}
