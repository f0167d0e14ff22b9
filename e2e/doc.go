// Package e2e holds the end-to-end test of mintlify_exporter with the real
// Prometheus and Alertmanager.
//
// The test builds the exporter binary, runs it against the fake Mintlify
// API of package mintlifytest, scrapes it with Prometheus (loaded with the
// shipped alerting and recording rules, their "for" durations shortened),
// routes the alerts through Alertmanager to a webhook inside the test, and
// checks that every dashboard query returns data and that injected faults
// fire the documented alerts. Everything listens on 127.0.0.1.
//
// It needs prometheus and promtool (Debian package prometheus) and
// alertmanager and amtool (Debian package prometheus-alertmanager, which
// installs the server as prometheus-alertmanager). Without them the test
// skips, or fails when the CI environment variable is set. The package has
// no code outside its tests.
package e2e
