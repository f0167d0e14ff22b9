package deploy

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mintlify-exporter/mintlify_exporter/internal/pinnedtool"
)

// kubeVersion is the Kubernetes version helm renders for: a helm built with
// go build (tools/helm) defaults to 1.20, older than the chart's kubeVersion.
const kubeVersion = "--kube-version=1.31.0"

// The chart and its values of the tests.
var (
	chartDir       = filepath.Join("..", "charts", "mintlify-exporter")
	chartFullValue = filepath.Join(chartDir, "ci", "full-values.yaml")
)

// The Kubernetes and prometheus-operator objects the chart renders, modelled
// field by field: rendered objects are decoded strictly (an unknown field,
// such as a misspelt one, fails the test).
type (
	objMeta struct {
		Name        string            `yaml:"name"`
		Namespace   string            `yaml:"namespace"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	}
	labelSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	probe struct {
		HTTPGet *struct {
			Path   string `yaml:"path"`
			Port   string `yaml:"port"`
			Scheme string `yaml:"scheme"`
		} `yaml:"httpGet"`
		TCPSocket *struct {
			Port string `yaml:"port"`
		} `yaml:"tcpSocket"`
		PeriodSeconds    int `yaml:"periodSeconds"`
		TimeoutSeconds   int `yaml:"timeoutSeconds"`
		FailureThreshold int `yaml:"failureThreshold"`
	}
	container struct {
		Name            string   `yaml:"name"`
		Image           string   `yaml:"image"`
		ImagePullPolicy string   `yaml:"imagePullPolicy"`
		Args            []string `yaml:"args"`
		Env             []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
		EnvFrom []struct {
			ConfigMapRef *struct {
				Name string `yaml:"name"`
			} `yaml:"configMapRef"`
			SecretRef *struct {
				Name string `yaml:"name"`
			} `yaml:"secretRef"`
		} `yaml:"envFrom"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
			Protocol      string `yaml:"protocol"`
		} `yaml:"ports"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		Resources      struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			SubPath   string `yaml:"subPath"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	}
	volume struct {
		Name   string `yaml:"name"`
		Secret *struct {
			SecretName  string `yaml:"secretName"`
			DefaultMode int    `yaml:"defaultMode"`
		} `yaml:"secret"`
		EmptyDir *struct {
			SizeLimit string `yaml:"sizeLimit"`
		} `yaml:"emptyDir"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
	}
	topologySpread struct {
		MaxSkew           int           `yaml:"maxSkew"`
		TopologyKey       string        `yaml:"topologyKey"`
		WhenUnsatisfiable string        `yaml:"whenUnsatisfiable"`
		LabelSelector     labelSelector `yaml:"labelSelector"`
	}
	serviceAccount struct {
		APIVersion                   string  `yaml:"apiVersion"`
		Kind                         string  `yaml:"kind"`
		Metadata                     objMeta `yaml:"metadata"`
		AutomountServiceAccountToken *bool   `yaml:"automountServiceAccountToken"`
	}
	testPod struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   objMeta `yaml:"metadata"`
		Spec       struct {
			RestartPolicy                string         `yaml:"restartPolicy"`
			AutomountServiceAccountToken *bool          `yaml:"automountServiceAccountToken"`
			SecurityContext              map[string]any `yaml:"securityContext"`
			Containers                   []struct {
				Name            string         `yaml:"name"`
				Image           string         `yaml:"image"`
				ImagePullPolicy string         `yaml:"imagePullPolicy"`
				SecurityContext map[string]any `yaml:"securityContext"`
				Command         []string       `yaml:"command"`
				Args            []string       `yaml:"args"`
			} `yaml:"containers"`
		} `yaml:"spec"`
	}
	deployment struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   objMeta `yaml:"metadata"`
		Spec       struct {
			Replicas             int  `yaml:"replicas"`
			RevisionHistoryLimit *int `yaml:"revisionHistoryLimit"`
			Strategy             struct {
				Type string `yaml:"type"`
			} `yaml:"strategy"`
			Selector labelSelector `yaml:"selector"`
			Template struct {
				Metadata objMeta `yaml:"metadata"`
				Spec     struct {
					ServiceAccountName           string `yaml:"serviceAccountName"`
					AutomountServiceAccountToken *bool  `yaml:"automountServiceAccountToken"`
					PriorityClassName            string `yaml:"priorityClassName"`
					ImagePullSecrets             []struct {
						Name string `yaml:"name"`
					} `yaml:"imagePullSecrets"`
					SecurityContext struct {
						RunAsNonRoot   *bool `yaml:"runAsNonRoot"`
						RunAsUser      int   `yaml:"runAsUser"`
						RunAsGroup     int   `yaml:"runAsGroup"`
						FSGroup        int   `yaml:"fsGroup"`
						SeccompProfile struct {
							Type string `yaml:"type"`
						} `yaml:"seccompProfile"`
					} `yaml:"securityContext"`
					Containers                []container       `yaml:"containers"`
					NodeSelector              map[string]string `yaml:"nodeSelector"`
					Tolerations               []map[string]any  `yaml:"tolerations"`
					Affinity                  map[string]any    `yaml:"affinity"`
					Volumes                   []volume          `yaml:"volumes"`
					TopologySpreadConstraints []topologySpread  `yaml:"topologySpreadConstraints"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	service struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   objMeta `yaml:"metadata"`
		Spec       struct {
			Type     string            `yaml:"type"`
			Selector map[string]string `yaml:"selector"`
			Ports    []struct {
				Name       string `yaml:"name"`
				Port       int    `yaml:"port"`
				TargetPort string `yaml:"targetPort"`
				Protocol   string `yaml:"protocol"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	secret struct {
		APIVersion string            `yaml:"apiVersion"`
		Kind       string            `yaml:"kind"`
		Metadata   objMeta           `yaml:"metadata"`
		Type       string            `yaml:"type"`
		Data       map[string]string `yaml:"data"`
	}
	configMap struct {
		APIVersion string            `yaml:"apiVersion"`
		Kind       string            `yaml:"kind"`
		Metadata   objMeta           `yaml:"metadata"`
		Data       map[string]string `yaml:"data"`
	}
	pvc struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   objMeta `yaml:"metadata"`
		Spec       struct {
			AccessModes      []string `yaml:"accessModes"`
			StorageClassName string   `yaml:"storageClassName"`
			Resources        struct {
				Requests map[string]string `yaml:"requests"`
			} `yaml:"resources"`
		} `yaml:"spec"`
	}
	networkPort struct {
		Port     any    `yaml:"port"`
		Protocol string `yaml:"protocol"`
	}
	networkPeer struct {
		NamespaceSelector *labelSelector `yaml:"namespaceSelector"`
		PodSelector       *labelSelector `yaml:"podSelector"`
	}
	networkPolicy struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   objMeta `yaml:"metadata"`
		Spec       struct {
			PodSelector labelSelector `yaml:"podSelector"`
			PolicyTypes []string      `yaml:"policyTypes"`
			Ingress     []struct {
				Ports []networkPort `yaml:"ports"`
				From  []networkPeer `yaml:"from"`
			} `yaml:"ingress"`
			Egress []struct {
				Ports []networkPort `yaml:"ports"`
			} `yaml:"egress"`
		} `yaml:"spec"`
	}
	secretKeySelector struct {
		Name string `yaml:"name"`
		Key  string `yaml:"key"`
	}
	relabeling struct {
		Action       string   `yaml:"action"`
		SourceLabels []string `yaml:"sourceLabels"`
		Regex        string   `yaml:"regex"`
		TargetLabel  string   `yaml:"targetLabel"`
		Replacement  string   `yaml:"replacement"`
	}
	scrapeEndpoint struct {
		Port          string `yaml:"port"`
		Path          string `yaml:"path"`
		Interval      string `yaml:"interval"`
		ScrapeTimeout string `yaml:"scrapeTimeout"`
		Scheme        string `yaml:"scheme"`
		TLSConfig     *struct {
			InsecureSkipVerify bool   `yaml:"insecureSkipVerify"`
			ServerName         string `yaml:"serverName"`
			CA                 *struct {
				Secret secretKeySelector `yaml:"secret"`
			} `yaml:"ca"`
		} `yaml:"tlsConfig"`
		BasicAuth *struct {
			Username secretKeySelector `yaml:"username"`
			Password secretKeySelector `yaml:"password"`
		} `yaml:"basicAuth"`
		Authorization *struct {
			Type        string            `yaml:"type"`
			Credentials secretKeySelector `yaml:"credentials"`
		} `yaml:"authorization"`
		Relabelings       []relabeling `yaml:"relabelings"`
		MetricRelabelings []relabeling `yaml:"metricRelabelings"`
	}
	monitorSpec struct {
		JobLabel          string   `yaml:"jobLabel"`
		TargetLabels      []string `yaml:"targetLabels"`
		NamespaceSelector struct {
			MatchNames []string `yaml:"matchNames"`
		} `yaml:"namespaceSelector"`
		Selector            labelSelector    `yaml:"selector"`
		Endpoints           []scrapeEndpoint `yaml:"endpoints"`
		PodMetricsEndpoints []scrapeEndpoint `yaml:"podMetricsEndpoints"`
	}
	monitor struct {
		APIVersion string      `yaml:"apiVersion"`
		Kind       string      `yaml:"kind"`
		Metadata   objMeta     `yaml:"metadata"`
		Spec       monitorSpec `yaml:"spec"`
	}
	promRule struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   objMeta `yaml:"metadata"`
		Spec       struct {
			Groups []chartRuleGroup `yaml:"groups"`
		} `yaml:"spec"`
	}
	chartRuleGroup struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	}
)

// rendered is the chart's output, by kind.
type rendered struct {
	deployment      *deployment
	service         *service
	secret          *secret            // the API key's
	secrets         map[string]*secret // every Secret, by name
	testPod         *testPod
	dashboards      *configMap
	pvc             *pvc
	networkPolicy   *networkPolicy
	serviceMonitor  *monitor
	podMonitor      *monitor
	prometheusRule  *promRule
	serviceAccount  *serviceAccount
	kinds           []string
	apiVersionsSeen map[string]string
}

// decodeStrict decodes one YAML document into v, refusing unknown fields.
func decodeStrict(doc []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// knobHelm starts a test of one of the chart's knobs: it runs beside the
// others (helm is a program of its own) and returns helm's path. Under
// -short it skips: the chart's lint, its defaults, its required values and
// its full values still render; make test runs every knob.
func knobHelm(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("renders the chart with a knob changed (-short): make test runs it")
	}
	t.Parallel()
	return pinnedtool.Path(t, "helm")
}

// renders keeps helm template's output by its arguments: several tests
// read the chart rendered with the base values, which needs rendering once.
var renders sync.Map // arguments joined by NUL -> output

// renderOnce runs helm with args, or returns what the same args gave
// before. A values file can change between runs: args with --values always
// run.
func renderOnce(t *testing.T, helm string, args []string) string {
	t.Helper()
	if slices.Contains(args, "--values") {
		return mustRunTool(t, ".", helm, args...)
	}
	key := strings.Join(args, "\x00")
	if out, ok := renders.Load(key); ok {
		return out.(string)
	}
	out := mustRunTool(t, ".", helm, args...)
	renders.Store(key, out)
	return out
}

// renderChart runs helm template with more arguments (--values, --set) and
// decodes every object strictly into its type.
func renderChart(t *testing.T, helm string, more ...string) rendered {
	t.Helper()
	args := append([]string{"template", "mintlify-exporter", chartDir, "--namespace", "monitoring", kubeVersion}, more...)
	out := renderOnce(t, helm, args)
	r := rendered{apiVersionsSeen: map[string]string{}, secrets: map[string]*secret{}}
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("helm template output does not parse: %v\n%s", err, out)
		}
		doc, err := yaml.Marshal(&node)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil || head.Kind == "" {
			continue // an empty document
		}
		r.kinds = append(r.kinds, head.Kind)
		r.apiVersionsSeen[head.Kind] = head.APIVersion
		var v any
		switch head.Kind {
		case "Deployment":
			r.deployment = &deployment{}
			v = r.deployment
		case "Service":
			r.service = &service{}
			v = r.service
		case "Secret":
			s := &secret{}
			if err := decodeStrict(doc, s); err != nil {
				t.Errorf("Secret: %v\n%s", err, doc)
			}
			r.secrets[s.Metadata.Name] = s
			if !strings.HasSuffix(s.Metadata.Name, "-web-config") {
				r.secret = s
			}
			continue
		case "Pod":
			r.testPod = &testPod{}
			v = r.testPod
		case "ConfigMap":
			r.dashboards = &configMap{}
			v = r.dashboards
		case "PersistentVolumeClaim":
			r.pvc = &pvc{}
			v = r.pvc
		case "NetworkPolicy":
			r.networkPolicy = &networkPolicy{}
			v = r.networkPolicy
		case "ServiceMonitor":
			r.serviceMonitor = &monitor{}
			v = r.serviceMonitor
		case "PodMonitor":
			r.podMonitor = &monitor{}
			v = r.podMonitor
		case "PrometheusRule":
			r.prometheusRule = &promRule{}
			v = r.prometheusRule
		case "ServiceAccount":
			r.serviceAccount = &serviceAccount{}
			v = r.serviceAccount
		default:
			t.Errorf("the chart renders a %s the test does not know", head.Kind)
			continue
		}
		if err := decodeStrict(doc, v); err != nil {
			t.Errorf("%s: %v\n%s", head.Kind, err, doc)
		}
	}
	return r
}

func TestHelmLint(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	mustRunTool(t, ".", helm, "lint", "--strict", kubeVersion, chartDir, "--set", "projectIds={docs},apiKey.existingSecret=key")
	mustRunTool(t, ".", helm, "lint", "--strict", kubeVersion, chartDir, "--values", chartFullValue)
}

// TestHelmRequiredValues: without projects or a key the chart refuses to
// render, saying what to set.
func TestHelmRequiredValues(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	for _, c := range []struct{ set, want string }{
		{"apiKey.existingSecret=key", "set projectIds"},
		{"projectIds={docs}", "set apiKey.existingSecret"},
	} {
		out, err := runTool(t, ".", helm, "template", "x", chartDir, kubeVersion, "--set", c.set)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("--set %s: %v, want a refusal saying %q:\n%s", c.set, err, c.want, out)
		}
	}
}

func TestHelmDefaultValues(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	values := filepath.Join(t.TempDir(), "values.yaml")
	const key = "mint_0123456789abcdefghijklmnopqrstuv"
	if err := os.WriteFile(values, []byte("projectIds: [acme-docs]\napiKey:\n  value: "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := renderChart(t, helm, "--values", values)
	slices.Sort(r.kinds)
	if want := []string{"Deployment", "PersistentVolumeClaim", "Pod", "Secret", "Service", "ServiceAccount"}; !slices.Equal(r.kinds, want) {
		t.Fatalf("default values render %v, want %v", r.kinds, want)
	}
	d := r.deployment
	checkDeployment(t, d, r.secret.Metadata.Name)
	c := d.Spec.Template.Spec.Containers[0]
	if v, _ := flagValue(c.Args, "mintlify.project-id"); v != "acme-docs" {
		t.Errorf("args %q: want --mintlify.project-id=acme-docs", c.Args)
	}
	// The budget journal and the remediation ledger outlive the pod: an
	// upgrade, a key rotation or a drain does not spend a first round again.
	checkCacheOnClaim(t, r)
	// The key is in the Secret the chart made, and nowhere else.
	if got := r.secret.Data["api-key"]; got == "" {
		t.Errorf("the Secret has no api-key: %v", r.secret.Data)
	}
	out := mustRunTool(t, ".", helm, "template", "mintlify-exporter", chartDir, kubeVersion, "--values", values)
	if strings.Count(out, key) != 0 {
		t.Error("the API key appears in clear text in the rendered objects")
	}
}

func TestHelmFullValues(t *testing.T) {
	t.Parallel() // helm runs as a program of its own
	helm := pinnedtool.Path(t, "helm")
	r := renderChart(t, helm, "--values", chartFullValue)
	slices.Sort(r.kinds)
	want := []string{"ConfigMap", "Deployment", "NetworkPolicy", "PersistentVolumeClaim", "Pod", "PrometheusRule", "Service", "ServiceAccount", "ServiceMonitor"}
	if !slices.Equal(r.kinds, want) {
		t.Fatalf("full values render %v, want %v (an existing Secret: no Secret)", r.kinds, want)
	}
	for kind, v := range map[string]string{"ServiceMonitor": "monitoring.coreos.com/v1",
		"PrometheusRule": "monitoring.coreos.com/v1", "NetworkPolicy": "networking.k8s.io/v1", "Deployment": "apps/v1"} {
		if r.apiVersionsSeen[kind] != v {
			t.Errorf("%s apiVersion %s, want %s", kind, r.apiVersionsSeen[kind], v)
		}
	}
	d := r.deployment
	checkDeployment(t, d, "mintlify-admin-key")
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "registry.example.com/mintlify_exporter:v0.3.0" {
		t.Errorf("image %s", c.Image)
	}
	if v, _ := flagValue(c.Args, "mintlify.api-key-file"); v != "/etc/mintlify_exporter/key" {
		t.Errorf("--mintlify.api-key-file=%s, want the existing Secret's key", v)
	}
	var projects []string
	for _, a := range c.Args {
		if p, ok := strings.CutPrefix(a, "--mintlify.project-id="); ok {
			projects = append(projects, p)
		}
	}
	if !slices.Equal(projects, []string{"acme-docs", "acme-developers"}) || !slices.Contains(c.Args, "--collector.jobs") {
		t.Errorf("args %q: want both projects and the extra args", c.Args)
	}
	checkCacheOnClaim(t, r)
	if r.pvc.Spec.StorageClassName != "standard" {
		t.Errorf("storageClassName %q, want standard from values", r.pvc.Spec.StorageClassName)
	}
	checkMonitor(t, r.serviceMonitor, d)
	if r.serviceMonitor.Spec.Endpoints[0].Interval != "2m" {
		t.Errorf("serviceMonitor.interval from values: %s", r.serviceMonitor.Spec.Endpoints[0].Interval)
	}
	if !subset(r.serviceMonitor.Spec.Selector.MatchLabels, r.service.Metadata.Labels) {
		t.Error("the ServiceMonitor does not select the Service")
	}
	// The rules are the shipped (generated) ones.
	var shipped struct {
		Groups []chartRuleGroup `yaml:"groups"`
	}
	if err := decodeStrict(readFile(t, rulesFile), &shipped); err != nil {
		t.Fatal(err)
	}
	if r.prometheusRule.Metadata.Labels["release"] != "kube-prometheus-stack" {
		t.Errorf("PrometheusRule labels %v", r.prometheusRule.Metadata.Labels)
	}
	a, _ := yaml.Marshal(shipped.Groups)
	b, _ := yaml.Marshal(r.prometheusRule.Spec.Groups)
	if !bytes.Equal(a, b) {
		t.Errorf("the PrometheusRule's groups differ from %s", rulesFile)
	}
	// The dashboards, for the Grafana sidecar.
	cm := r.dashboards
	if cm.Metadata.Labels["grafana_dashboard"] != "1" || cm.Metadata.Annotations["grafana_folder"] != "Docs" {
		t.Errorf("dashboards ConfigMap labels %v annotations %v", cm.Metadata.Labels, cm.Metadata.Annotations)
	}
	files, _ := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	if got := slices.Sorted(maps.Keys(cm.Data)); len(got) != len(files) {
		t.Errorf("the ConfigMap holds %v, want the %d dashboards", got, len(files))
	}
	for _, f := range files {
		if strings.TrimSpace(cm.Data[filepath.Base(f)]) != strings.TrimSpace(string(readFile(t, f))) {
			t.Errorf("the ConfigMap's %s differs from %s", filepath.Base(f), f)
		}
	}
	// The NetworkPolicy lets the monitoring namespace's Prometheus in, and
	// the exporter out to DNS and HTTPS only.
	np := r.networkPolicy.Spec
	if !subset(np.PodSelector.MatchLabels, d.Spec.Template.Metadata.Labels) || len(np.Ingress) != 1 || len(np.Ingress[0].From) != 2 {
		t.Errorf("NetworkPolicy %+v", np)
	}
	var egress []string
	for _, e := range np.Egress {
		for _, p := range e.Ports {
			egress = append(egress, strings.TrimSpace(strings.Trim(yamlString(p.Port), "\n")))
		}
	}
	if slices.Sort(egress); !slices.Equal(egress, []string{"443", "53", "53"}) {
		t.Errorf("egress ports %v, want DNS and 443", egress)
	}
}

// checkCacheOnClaim checks that --cache.file is on the chart's
// PersistentVolumeClaim.
func checkCacheOnClaim(t *testing.T, r rendered) {
	t.Helper()
	if r.pvc == nil {
		t.Fatal("no PersistentVolumeClaim: the cache file does not outlive the pod")
	}
	if r.pvc.Spec.Resources.Requests["storage"] != "64Mi" || !slices.Equal(r.pvc.Spec.AccessModes, []string{"ReadWriteOnce"}) {
		t.Errorf("claim %+v, want 64Mi ReadWriteOnce", r.pvc.Spec)
	}
	found := false
	for _, v := range r.deployment.Spec.Template.Spec.Volumes {
		if v.Name == "cache" {
			found = v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == r.pvc.Metadata.Name
		}
	}
	if !found {
		t.Errorf("the cache volume is not the chart's claim %s", r.pvc.Metadata.Name)
	}
}

// checkMonitor checks a ServiceMonitor or PodMonitor: the label
// kube-prometheus-stack selects on (through values), one endpoint with the
// job name the rules select, and a selector of the exporter's pod.
func checkMonitor(t *testing.T, m *monitor, d *deployment) {
	t.Helper()
	if m.Metadata.Labels["release"] != "kube-prometheus-stack" {
		t.Errorf("%s labels %v: no release label from values", m.Metadata.Name, m.Metadata.Labels)
	}
	eps := append(m.Spec.Endpoints, m.Spec.PodMetricsEndpoints...)
	if len(eps) != 1 || eps[0].Port != "http" || eps[0].Path != metricsPath {
		t.Fatalf("scrape endpoints %+v", eps)
	}
	if !slices.ContainsFunc(eps[0].Relabelings, func(r relabeling) bool { return r.TargetLabel == "job" && r.Replacement == jobName }) {
		t.Errorf("relabelings %+v: the rules select job=%q", eps[0].Relabelings, jobName)
	}
	if !subset(m.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels) {
		t.Errorf("the monitor's selector %v does not select the pod %v", m.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels)
	}
}

// checkDeployment checks what every rendering's Deployment must do.
func checkDeployment(t *testing.T, d *deployment, secretName string) {
	t.Helper()
	if d.Spec.Replicas != 1 || d.Spec.Strategy.Type != "Recreate" {
		t.Errorf("replicas %d, strategy %q: want 1 and Recreate (one exporter per organization)", d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	if !subset(d.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels) {
		t.Errorf("the selector %v does not select the pod's labels %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels)
	}
	ps := d.Spec.Template.Spec
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken ||
		ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot || ps.SecurityContext.RunAsUser != 65532 ||
		ps.SecurityContext.SeccompProfile.Type != "RuntimeDefault" {
		t.Errorf("pod security %+v, automount %v: want non-root 65532, RuntimeDefault seccomp, no token", ps.SecurityContext, ps.AutomountServiceAccountToken)
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(ps.Containers))
	}
	c := ps.Containers[0]
	sc := c.SecurityContext
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container security %+v", sc)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != healthyPath ||
		c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != readyPath {
		t.Errorf("probes %+v / %+v: want %s and %s", c.LivenessProbe, c.ReadinessProbe, healthyPath, readyPath)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9863 || c.Ports[0].Name != "http" {
		t.Errorf("ports %+v", c.Ports)
	}
	if v, _ := flagValue(c.Args, "web.listen-address"); v != ":"+listenPort {
		t.Errorf("--web.listen-address=%s", v)
	}
	if v, ok := flagValue(c.Args, "cache.file"); !ok || !strings.HasPrefix(v, "/var/lib/mintlify_exporter/") {
		t.Errorf("--cache.file=%s: want it on the cache volume", v)
	}
	for _, a := range c.Args {
		if strings.Contains(a, "mint_") {
			t.Errorf("an argument holds a key: %s", a)
		}
	}
	for _, e := range c.Env {
		if strings.Contains(e.Name, "KEY") || strings.Contains(e.Value, "mint_") {
			t.Errorf("an environment variable holds a key: %s", e.Name)
		}
	}
	// (Every flag the chart's templates and values hold is checked against
	// the exporter's --help by TestDeployFilesUseExistingFlags.)
	found := false
	for _, v := range ps.Volumes {
		if v.Name == "api-key" && v.Secret != nil && v.Secret.SecretName == secretName {
			found = true
		}
	}
	if !found {
		t.Errorf("no api-key volume from the Secret %s", secretName)
	}
}

// yamlString is a scalar as YAML writes it.
func yamlString(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}
