package cli

import (
	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"
)

// newApp is the command line: every flag and command.
func newApp(f *flags) *kingpin.Application {
	return newAppVersion(f, version.Print(exporterName))
}
