package deploy

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var kubernetesDir = "kubernetes"

type k8sMeta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

type k8sDeployment struct {
	Kind     string  `yaml:"kind"`
	Metadata k8sMeta `yaml:"metadata"`
	Spec     struct {
		Replicas *int `yaml:"replicas"`
		Strategy struct {
			Type string `yaml:"type"`
		} `yaml:"strategy"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata k8sMeta `yaml:"metadata"`
			Spec     struct {
				SecurityContext struct {
					RunAsNonRoot *bool `yaml:"runAsNonRoot"`
				} `yaml:"securityContext"`
				Containers []struct {
					Name  string   `yaml:"name"`
					Args  []string `yaml:"args"`
					Ports []struct {
						Name          string `yaml:"name"`
						ContainerPort int    `yaml:"containerPort"`
					} `yaml:"ports"`
					LivenessProbe   *k8sProbe `yaml:"livenessProbe"`
					ReadinessProbe  *k8sProbe `yaml:"readinessProbe"`
					SecurityContext struct {
						ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
						AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
					} `yaml:"securityContext"`
					Resources struct {
						Requests map[string]string `yaml:"requests"`
					} `yaml:"resources"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						SubPath   string `yaml:"subPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name   string `yaml:"name"`
					Secret *struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
					EmptyDir any `yaml:"emptyDir"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sService struct {
	Metadata k8sMeta `yaml:"metadata"`
	Spec     struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort any    `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type k8sServiceMonitor struct {
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Endpoints []struct {
			Port          string `yaml:"port"`
			Path          string `yaml:"path"`
			Interval      string `yaml:"interval"`
			ScrapeTimeout string `yaml:"scrapeTimeout"`
			Relabelings   []struct {
				TargetLabel string `yaml:"targetLabel"`
				Replacement string `yaml:"replacement"`
			} `yaml:"relabelings"`
		} `yaml:"endpoints"`
	} `yaml:"spec"`
}

type k8sSecret struct {
	Metadata   k8sMeta           `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"`
}

// subset reports whether every label of sel is in labels.
func subset(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// flagValue returns the value of --name=value among args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestKubernetesManifests(t *testing.T) {
	var d k8sDeployment
	readYAML(t, filepath.Join(kubernetesDir, "deployment.yaml"), &d)
	var svc k8sService
	readYAML(t, filepath.Join(kubernetesDir, "service.yaml"), &svc)
	var sm k8sServiceMonitor
	readYAML(t, filepath.Join(kubernetesDir, "servicemonitor.yaml"), &sm)
	var secret k8sSecret
	readYAML(t, filepath.Join(kubernetesDir, "secret.example.yaml"), &secret)

	spec := d.Spec
	if spec.Replicas == nil || *spec.Replicas != 1 {
		t.Error("deployment: replicas must be exactly 1 (the request budget is per organization)")
	}
	if spec.Strategy.Type != "Recreate" {
		t.Errorf("deployment: strategy %q, want Recreate", spec.Strategy.Type)
	}
	pod := spec.Template
	if !subset(spec.Selector.MatchLabels, pod.Metadata.Labels) {
		t.Error("deployment: the selector does not match the pod's labels")
	}
	if rn := pod.Spec.SecurityContext.RunAsNonRoot; rn == nil || !*rn {
		t.Error("deployment: runAsNonRoot is not true")
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("deployment: %d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if ro := c.SecurityContext.ReadOnlyRootFilesystem; ro == nil || !*ro {
		t.Error("deployment: readOnlyRootFilesystem is not true")
	}
	if ape := c.SecurityContext.AllowPrivilegeEscalation; ape == nil || *ape {
		t.Error("deployment: allowPrivilegeEscalation is not false")
	}
	if len(c.Resources.Requests) == 0 {
		t.Error("deployment: no resource requests")
	}
	portName := ""
	for _, p := range c.Ports {
		if p.ContainerPort == 9863 {
			portName = p.Name
		}
	}
	if portName == "" {
		t.Fatalf("deployment: no named container port %s", listenPort)
	}
	if v, ok := flagValue(c.Args, "web.listen-address"); ok && v != ":"+listenPort {
		t.Errorf("deployment: --web.listen-address=%s, want :%s", v, listenPort)
	}
	for _, pr := range []struct {
		name  string
		probe *k8sProbe
		path  string
	}{{"livenessProbe", c.LivenessProbe, healthyPath}, {"readinessProbe", c.ReadinessProbe, readyPath}} {
		if pr.probe == nil {
			t.Errorf("deployment: no %s", pr.name)
			continue
		}
		if pr.probe.HTTPGet.Path != pr.path || (pr.probe.HTTPGet.Port != portName && pr.probe.HTTPGet.Port != 9863) {
			t.Errorf("deployment: %s gets %s on %v, want %s on %s", pr.name, pr.probe.HTTPGet.Path, pr.probe.HTTPGet.Port, pr.path, portName)
		}
	}

	// The key file and the cache file live on the pod's volumes.
	mounts := map[string]string{} // volume name -> mount path
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" {
			t.Errorf("deployment: volume %s is mounted with subPath, so updates never reach the container", m.Name)
		}
		mounts[m.Name] = m.MountPath
	}
	keyFile, ok := flagValue(c.Args, "mintlify.api-key-file")
	cacheFile, ok2 := flagValue(c.Args, "cache.file")
	if !ok || !ok2 {
		t.Fatalf("deployment: args %q lack --mintlify.api-key-file or --cache.file", c.Args)
	}
	var keyOK, cacheOK bool
	for _, v := range pod.Spec.Volumes {
		dir := mounts[v.Name]
		if v.Secret != nil && dir != "" && filepath.Dir(keyFile) == dir {
			if v.Secret.SecretName != secret.Metadata.Name {
				t.Errorf("deployment: the key comes from Secret %q, the example is %q", v.Secret.SecretName, secret.Metadata.Name)
			}
			if _, ok := secret.StringData[filepath.Base(keyFile)]; !ok {
				t.Errorf("secret example: no key %q for %s", filepath.Base(keyFile), keyFile)
			}
			keyOK = true
		}
		if v.EmptyDir != nil && dir != "" && filepath.Dir(cacheFile) == dir {
			cacheOK = true
		}
	}
	if !keyOK {
		t.Errorf("deployment: %s is not on a mounted Secret", keyFile)
	}
	if !cacheOK {
		t.Errorf("deployment: %s is not on a mounted emptyDir", cacheFile)
	}

	// Service and ServiceMonitor.
	if !subset(svc.Spec.Selector, pod.Metadata.Labels) {
		t.Error("service: the selector does not match the pod's labels")
	}
	svcPort := ""
	for _, p := range svc.Spec.Ports {
		if p.Port == 9863 && (p.TargetPort == portName || p.TargetPort == 9863) {
			svcPort = p.Name
		}
	}
	if svcPort == "" {
		t.Fatalf("service: no named port %s to the container's %s port", listenPort, portName)
	}
	if !subset(sm.Spec.Selector.MatchLabels, svc.Metadata.Labels) {
		t.Error("servicemonitor: the selector does not match the service's labels")
	}
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("servicemonitor: %d endpoints, want 1", len(sm.Spec.Endpoints))
	}
	ep := sm.Spec.Endpoints[0]
	if ep.Port != svcPort || ep.Path != metricsPath {
		t.Errorf("servicemonitor: scrapes %s on port %q, want %s on %q", ep.Path, ep.Port, metricsPath, svcPort)
	}
	if ep.Interval != "60s" || ep.ScrapeTimeout != "30s" {
		t.Errorf("servicemonitor: interval %q and scrapeTimeout %q, want 60s and 30s", ep.Interval, ep.ScrapeTimeout)
	}
	job := ""
	for _, r := range ep.Relabelings {
		if r.TargetLabel == "job" {
			job = r.Replacement
		}
	}
	if job != jobName {
		t.Errorf("servicemonitor: job label %q, want %q (the alerting rules select it)", job, jobName)
	}
}

func TestKustomization(t *testing.T) {
	var k struct {
		Resources []string `yaml:"resources"`
	}
	readYAML(t, filepath.Join(kubernetesDir, "kustomization.yaml"), &k)
	want := map[string]bool{"deployment.yaml": true, "service.yaml": true, "servicemonitor.yaml": true, "prometheusrule.yaml": true}
	for _, r := range k.Resources {
		if _, err := os.Stat(filepath.Join(kubernetesDir, r)); err != nil {
			t.Errorf("kustomization: %v", err)
		}
		delete(want, r)
	}
	if len(want) > 0 {
		t.Errorf("kustomization: missing resources %q", slices.Sorted(maps.Keys(want)))
	}
}
