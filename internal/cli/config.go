package cli

import (
	"errors"
	"slices"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// config assembles the exporter's configuration from the flag groups, each
// checking its values and naming the flag at fault. It logs warnings but no
// info line, so a bad start prints one line. The key and the projects come
// from the connection (serveConfig).
func config(f *flags, logger log.Logger) (exporter.Config, error) {
	cfg := exporter.Config{
		APIURL: f.api.url, Timeout: f.api.timeout, UserAgent: userAgent(), RequestsPerHour: f.api.requestsPerHour,
		CacheFile: f.cacheFile, TelemetryPath: f.web.telemetryPath, MaxRequests: f.web.maxRequests,
		Version: versionLine(), Logger: logger,
	}
	for _, check := range []func() error{
		func() error { return f.api.check(f.demo, logger) },
		func() error { return f.analytics.config(f.demo, logger, &cfg) },
		func() (err error) { cfg.Jobs, err = f.jobs.config(f.demo, f.remediation.config != ""); return err },
		f.web.check,
		func() error { return checkFiles(f) },
		func() error { return f.remediation.webhook(&cfg, f.web.basicAuth) },
		func() (err error) { cfg.Stream, err = f.stream.config(f.demo); return err },
	} {
		if err := check(); err != nil {
			return exporter.Config{}, err
		}
	}
	if f.streamOnly() {
		if err := f.checkStreamOnly(cfg.Jobs.Enabled, cfg.Remediation != nil); err != nil {
			return exporter.Config{}, err
		}
		cfg.Collectors = nil
	}
	if len(cfg.Collectors) == 0 && !cfg.Jobs.Enabled && cfg.Stream == nil {
		return exporter.Config{}, errors.New(
			"nothing to export: every source is off (--no-collector.*) and --collector.jobs is not set; turn one on")
	}
	if f.demo && f.api.url != client.DefaultBaseURL {
		level.Warn(logger).Log("msg", "--mintlify.api-url is ignored with --demo, which serves its own synthetic API", "api_url", f.api.url)
	}
	if f.web.telemetryPath == "/" {
		level.Warn(logger).Log("msg", "--web.telemetry-path=/ serves the metrics at /, in place of the landing page (the state of every unit and job)")
	}
	return cfg, nil
}

// serveConfig is config with the connection to the API (the demo's fake,
// started, with --demo) and what the demo adds: its banner, its commands to
// try and its jobs. Close the connection when done.
func serveConfig(f *flags, logger log.Logger) (exporter.Config, connection, error) {
	cfg, err := config(f, logger)
	if err != nil || f.streamOnly() { // stream only: no key, no project, the REST side is off
		return cfg, connection{}, err
	}
	conn, err := f.api.connect(f.demo, forServe, logger)
	if err != nil {
		return cfg, connection{}, err
	}
	cfg.APIURL, cfg.Key, cfg.Projects = conn.apiURL, conn.key, conn.projects
	if d := conn.demo; d != nil {
		cfg.Notes = append(cfg.Notes, d.Banner())
		cfg.Examples = demoExamples()
		for _, id := range d.JobIDs {
			if !slices.Contains(cfg.Jobs.IDs, id) {
				cfg.Jobs.IDs = append(cfg.Jobs.IDs, id)
			}
		}
	}
	// What the watcher would refuse once the projects are known is refused
	// before anything is logged. With the remediation webhook on, the jobs
	// it creates are there to watch: --collector.jobs needs no --jobs.* then.
	err = checkTokenIsNotKey(cfg.Remediation, conn.key, f.remediation.tokenFile)
	if j := cfg.Jobs.Config; err == nil && cfg.Jobs.Enabled { // as exporter.New will
		j.Projects, j.Added = cfg.Projects, cfg.Remediation != nil
		err = jobs.CheckConfig(j)
	}
	if err != nil {
		conn.close()
		return cfg, connection{}, err
	}
	if conn.demo != nil && cfg.Stream != nil && cfg.Stream.Bucket == "" {
		conn.stream = demoStream(cfg.Stream, f.stream.set["stream.poll-interval"])
	}
	return cfg, conn, nil
}

// demoExamples are the agent commands to try against the demo, shown on
// its landing page and in its log, as the user can type them: under
// `go run` as the `go run` that builds the program again.
func demoExamples() []string {
	cmd := progname.Command()
	return []string{
		cmd + " agent get --demo --job=" + demo.Jobs[2].ID,
		cmd + " agent message --demo --job=" + demo.Jobs[0].ID + " --prompt='Also fix the broken links' --wait",
	}
}
