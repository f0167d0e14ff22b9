// Package e2e holds the tests that run the mintlify_exporter binary: the
// exporter against the fake Mintlify API of package mintlifytest, and the
// whole stack with the real Prometheus and Alertmanager.
//
// The binary is built once per test run, with coverage instrumentation
// (go build -cover); every run writes its counters to GOCOVERDIR, the
// caller's when set, so the binary-level tests count in coverage (see
// CONTRIBUTING.md). The exporter listens on 127.0.0.1:0; the harness reads
// the port from its "Listening on" log line and waits for /-/healthy.
// Prometheus and Alertmanager get a free loopback port chosen for them.
// Everything listens on 127.0.0.1.
//
// What the tests check, by file: visitors_test.go, every value served
// equals the fake's answer, in every format; cachefile_test.go, restarts
// with --cache.file; shutdown_test.go, SIGTERM during a refresh;
// demo_test.go, --demo; logformat_test.go, one log format; secrets_test.go,
// the API key never shows, key rotation and key file modes;
// webconfig_test.go, TLS and basic auth; load_test.go, concurrent scrapes;
// e2e_test.go and dashboards_test.go, alerts and dashboards with the real
// Prometheus and Alertmanager; backfill_test.go, the backfill loaded by
// promtool. The harness is in exporter_test.go (the binary),
// process_test.go (running programs) and scrape_test.go (reading what the
// exporter serves).
//
// Tests that need prometheus, promtool, alertmanager or amtool (Debian
// packages prometheus and prometheus-alertmanager) skip without them, or
// fail when the CI environment variable is set. go test -short skips the
// slow tests: the load test and the two with Prometheus. The package has
// no code outside its tests.
package e2e
