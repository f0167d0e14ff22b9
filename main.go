// Command mintlify_exporter is a Prometheus exporter for Mintlify's REST
// API: documentation analytics per site and page and the status of agent
// jobs, with an Alertmanager receiver that turns alerts into agent jobs,
// "agent" subcommands and a "backfill" of past days. The command line
// lives in internal/cli.
package main

import (
	"os"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
