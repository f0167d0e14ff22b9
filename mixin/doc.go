// Package mixin is the jsonnet monitoring mixin of mintlify_exporter
// (mixin.libsonnet: alerting and recording rules, Grafana dashboards and
// their _config). It has no Go code: make generate renders the rules and
// dashboards the repository ships from it with go-jsonnet, and the package's
// tests check that those files are what it renders and that the rules and
// dashboards are sound.
package mixin
