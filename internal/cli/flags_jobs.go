package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// jobsFlags are --collector.jobs and the --jobs.* flags of the job watcher.
type jobsFlags struct {
	enabled      bool
	ids          []string
	file         string
	discover     bool
	pollInterval time.Duration
	pollSet      bool
}

// maxPollInterval bounds --jobs.poll-interval: beyond it a value is a typo.
const maxPollInterval = 24 * time.Hour

func (j *jobsFlags) register(app *kingpin.Application) {
	app.Flag("collector.jobs", "Enable the agent job watcher.").Default("false").BoolVar(&j.enabled)
	app.Flag("jobs.id", "Agent job to watch, as ID (with one project) or PROJECT/ID; repeatable.").PlaceHolder("ID").StringsVar(&j.ids)
	app.Flag("jobs.file", "File of job ids to watch, one a line ('#' comments), re-read when it changes.").PlaceHolder("FILE").StringVar(&j.file)
	app.Flag("jobs.discover", "Also discover jobs through the API's deprecated v1 job listing.").Default("false").BoolVar(&j.discover)
	app.Flag("jobs.poll-interval", "How often non-terminal jobs are re-read.").Default("1m").IsSetByUser(&j.pollSet).DurationVar(&j.pollInterval)
}

// config checks the job flags; the watcher also runs for the demo and for
// the jobs the remediation webhook creates.
func (j *jobsFlags) config(demo, remediation bool) (exporter.JobsConfig, error) {
	c := exporter.JobsConfig{Enabled: j.enabled || demo,
		Config: jobs.Config{IDs: j.ids, File: j.file, Discover: j.discover, PollInterval: j.pollInterval}}
	if j.pollInterval < jobs.MinPollInterval || j.pollInterval > maxPollInterval {
		return c, fmt.Errorf("--jobs.poll-interval must be from %s to %s, not %s", jobs.MinPollInterval, maxPollInterval, j.pollInterval)
	}
	if !c.Enabled {
		for _, f := range []struct {
			flag string
			set  bool
		}{{"--jobs.id", len(j.ids) > 0}, {"--jobs.file", j.file != ""}, {"--jobs.discover", j.discover}, {"--jobs.poll-interval", j.pollSet && !remediation}} {
			if f.set {
				return c, fmt.Errorf("%s is set but the job watcher is off: add --collector.jobs", f.flag)
			}
		}
	}
	for _, id := range j.ids {
		if strings.TrimSpace(id) == "" {
			return c, errors.New("--jobs.id is empty (an unset shell variable?)")
		}
		if looksLikeKey(id) {
			return c, errors.New("--jobs.id: a value looks like an admin API key (mint_...), not a job id; it would become a label")
		}
	}
	if j.file != "" {
		if err := checkJobsFile(j.file); err != nil {
			return c, fmt.Errorf("--jobs.file=%s: %v", j.file, err)
		}
	}
	return c, nil
}
