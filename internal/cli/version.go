package cli

import (
	"cmp"
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// fillVersionFrom completes what a build without -ldflags (go run, go
// install) left unset from debug.ReadBuildInfo, which
// prometheus/common/version reads only for the revision: the module version
// and the commit time as build date; what stays unknown reads "unknown".
func fillVersionFrom(bi *debug.BuildInfo, ok bool) {
	if !ok {
		bi = &debug.BuildInfo{Main: debug.Module{Version: "unknown"}}
	}
	if v := bi.Main.Version; v != "(devel)" {
		version.Version = cmp.Or(version.Version, v)
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" && s.Value != "" {
			version.BuildDate = cmp.Or(version.BuildDate, s.Value+" (commit time)")
		}
	}
	version.Version = cmp.Or(version.Version, "devel")
	for _, v := range []*string{&version.Branch, &version.BuildUser, &version.BuildDate} {
		*v = cmp.Or(*v, "unknown")
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
