// Command mintlify_exporter is a Prometheus exporter for Mintlify (internal/cli).
package main

import (
	"os"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
