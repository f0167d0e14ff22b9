package cli

import (
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// fillVersionFrom completes what a build without -ldflags (go run, go
// install) left unset from debug.ReadBuildInfo: the module version and the
// commit time as build date (the revision is version.GetRevision's own);
// what stays unknown reads "unknown".
func fillVersionFrom(bi *debug.BuildInfo, ok bool) {
	if !ok {
		bi = &debug.BuildInfo{Main: debug.Module{Version: "unknown"}}
	}
	if version.Version == "" {
		version.Version = "devel"
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version.Version = v
		}
	}
	for _, s := range bi.Settings {
		if version.BuildDate == "" && s.Key == "vcs.time" && s.Value != "" {
			version.BuildDate = s.Value + " (commit time)"
		}
	}
	for _, v := range []*string{&version.Version, &version.Branch, &version.BuildUser, &version.BuildDate} {
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
