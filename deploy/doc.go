// Package deploy holds the operational files shipped with mintlify_exporter
// and the tests that keep them working: the Prometheus recording and
// alerting rules with their promtool unit tests, the Alertmanager example,
// the Kubernetes manifests, the systemd unit and the compose demo stack, as
// well as checks of the Grafana dashboards in ../dashboards and of the
// Dockerfile.
//
// The package has no Go API; `go test ./deploy/` runs the checks. Those that
// need promtool, amtool or systemd-analyze skip when the program is missing,
// naming the Debian package to install, and fail instead when the
// environment variable CI is set.
package deploy
