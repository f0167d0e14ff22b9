// Package deploy holds the operational files shipped with mintlify_exporter
// (rules, Alertmanager and remediation examples, Kubernetes manifests,
// systemd unit, compose stack) and the tests that keep them, the Helm chart
// in ../charts, the dashboards, the Dockerfile and the release archives
// working. It has no Go API. Tests that need a missing tool (promtool,
// amtool, helm...) skip, saying how to install it, and fail when CI is set.
package deploy
