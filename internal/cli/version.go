package cli

import (
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// fillVersion completes the version information when the build did not set
// it with -ldflags (go run, go install, go build without the Makefile),
// from the module's build information: the module version (set by go
// install module@version), the VCS revision and commit time (set by go
// build in a git checkout). What stays unknown reads "unknown".
func fillVersion() {
	bi, ok := debug.ReadBuildInfo()
	fillVersionFrom(bi, ok)
}

// fillVersionFrom is fillVersion on given build information.
func fillVersionFrom(bi *debug.BuildInfo, ok bool) {
	if version.Version == "" {
		version.Version = "unknown"
		if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version.Version = bi.Main.Version
		} else if ok {
			version.Version = "devel"
		}
	}
	{
		var rev, when string
		modified := false
		if ok {
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.time":
					when = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
		}
		if version.Revision == "" && rev != "" {
			version.Revision = rev
			if modified {
				version.Revision += "-modified"
			}
		}
		if version.BuildDate == "" && when != "" {
			version.BuildDate = when + " (commit time)"
		}
	}
	if version.Branch == "" {
		version.Branch = "unknown"
	}
	if version.BuildUser == "" {
		version.BuildUser = "unknown"
	}
	if version.BuildDate == "" {
		version.BuildDate = "unknown"
	}
}

// versionLine is the version for people: "v1.2.3, revision abc1234, built
// 20260501-12:00:00", leaving out what the build did not record.
func versionLine() string {
	s := version.Version
	if version.Revision != "" && version.Revision != "unknown" {
		s += ", revision " + version.Revision
	}
	if version.BuildDate != "" && version.BuildDate != "unknown" {
		s += ", built " + version.BuildDate
	}
	return s
}
