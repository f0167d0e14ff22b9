// Command mintlify_exporter is a Prometheus exporter for Mintlify's REST API:
// documentation analytics per site and page, the status of agent jobs, and an
// Alertmanager receiver that turns alerts into agent jobs. Run it with --help;
// the command line is package internal/cli.
package main

import (
	"os"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
