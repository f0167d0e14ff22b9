package cli

import (
	"runtime/debug"
	"testing"

	"github.com/prometheus/common/version"
)

func TestFillVersionFromBuildInfo(t *testing.T) {
	saved := [5]string{version.Version, version.Revision, version.Branch, version.BuildUser, version.BuildDate}
	defer func() {
		version.Version, version.Revision, version.Branch, version.BuildUser, version.BuildDate = saved[0], saved[1], saved[2], saved[3], saved[4]
	}()
	set := func() {
		version.Version, version.Revision, version.Branch, version.BuildUser, version.BuildDate = "", "", "", "", ""
	}

	set()
	fillVersionFrom(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-08-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true)
	// The revision is left to prometheus/common/version, which reads it
	// from the running binary's build information, not from bi.
	if version.Revision != "" {
		t.Errorf("version.Revision set to %q: it hides version.GetRevision's", version.Revision)
	}
	if got, want := version.Info(), "(version=v1.2.3, branch=unknown, revision="+version.GetRevision()+")"; got != want {
		t.Errorf("go install with VCS: %s, want %s", got, want)
	}
	if version.BuildDate != "2026-08-01T10:00:00Z (commit time)" {
		t.Errorf("build date %q", version.BuildDate)
	}

	set()
	fillVersionFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true)
	if got := version.Info(); got != "(version=devel, branch=unknown, revision="+version.GetRevision()+")" {
		t.Errorf("go run: %s", got)
	}

	set()
	version.Version, version.Revision, version.Branch = "0.4.0", "fff", "main"
	fillVersionFrom(&debug.BuildInfo{Main: debug.Module{Version: "v9"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, true)
	if got := version.Info(); got != "(version=0.4.0, branch=main, revision=fff)" {
		t.Errorf("-ldflags values were overwritten: %s", got)
	}
}
