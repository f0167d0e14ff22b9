package cli

import (
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// fillVersionFrom completes the version information from what
// debug.ReadBuildInfo returns when the build did not set it with -ldflags
// (go run, go install, go build without the Makefile).
//
// The revision is prometheus/common/version's own: when -ldflags left
// version.Revision empty, version.GetRevision reads vcs.revision (and
// vcs.modified) from debug.ReadBuildInfo, and Info, Print and the
// build_info collector all use it. What that package lacks is filled here
// from the same build information: the module version (set by go install
// module@version; version.Version would stay empty) and the commit time
// as the build date. What stays unknown reads "unknown".
func fillVersionFrom(bi *debug.BuildInfo, ok bool) {
	if version.Version == "" {
		version.Version = "unknown"
		if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version.Version = bi.Main.Version
		} else if ok {
			version.Version = "devel"
		}
	}
	if version.BuildDate == "" && ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" && s.Value != "" {
				version.BuildDate = s.Value + " (commit time)"
			}
		}
	}
	for _, v := range []*string{&version.Branch, &version.BuildUser, &version.BuildDate} {
		if *v == "" {
			*v = "unknown"
		}
	}
}

// versionLine is the version for people: "v1.2.3, revision abc1234, built
// 20260501-12:00:00", leaving out what the build did not record.
func versionLine() string {
	s := version.Version
	if rev := version.GetRevision(); rev != "" && rev != "unknown" {
		s += ", revision " + rev
	}
	if version.BuildDate != "" && version.BuildDate != "unknown" {
		s += ", built " + version.BuildDate
	}
	return s
}
