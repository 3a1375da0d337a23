package exporter

import (
	"runtime/debug"
	"testing"

	"github.com/prometheus/common/version"
)

// A binary built without the Makefile's -ldflags takes its version and
// date from what the go command stamped; "(devel)" only when nothing was.
func TestFillUnstampedVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "961e5b636356c8628ce013bb878f8ef2168e4ec2"
	for _, tc := range []struct {
		name                  string
		info                  *debug.BuildInfo
		wantVersion, wantDate string
	}{
		{"go install module@version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			"v1.2.3", "unknown"},
		{"go build in a clone (go 1.24+ records a pseudo-version)", &debug.BuildInfo{
			Main: debug.Module{Version: "v0.0.0-20261202073937-961e5b636356"}, Settings: vcs(rev, "2026-12-02T07:39:37Z", "false")},
			"v0.0.0-20261202073937-961e5b636356", "20261202-07:39:37"},
		{"go run: no module version, a commit", &debug.BuildInfo{
			Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-12-02T08:39:37+01:00", "true")},
			"v0.0.0-20261202073937-961e5b636356+dirty", "20261202-07:39:37"},
		{"-buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := [...]string{version.Version, version.Revision, version.Branch, version.BuildUser, version.BuildDate}
			t.Cleanup(func() {
				version.Version, version.Revision, version.Branch, version.BuildUser, version.BuildDate =
					saved[0], saved[1], saved[2], saved[3], saved[4]
			})
			version.Version, version.Revision, version.Branch, version.BuildUser, version.BuildDate = "", "", "", "", ""
			fillUnstampedVersion(func() (*debug.BuildInfo, bool) { return tc.info, true })
			if version.Version != tc.wantVersion || version.BuildDate != tc.wantDate {
				t.Errorf("version %q, build date %q; want %q, %q", version.Version, version.BuildDate, tc.wantVersion, tc.wantDate)
			}
			if version.Branch != "unknown" || version.BuildUser != "unknown" {
				t.Errorf("branch %q, build user %q; want unknown", version.Branch, version.BuildUser)
			}
		})
	}

	// Stamped values (make build) are kept.
	saved := [...]string{version.Version, version.BuildDate}
	t.Cleanup(func() { version.Version, version.BuildDate = saved[0], saved[1] })
	version.Version, version.BuildDate = "0.1.0", "20260102-03:04:05"
	fillUnstampedVersion(func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs(rev, "2026-12-02T07:39:37Z", "false")}, true
	})
	if version.Version != "0.1.0" || version.BuildDate != "20260102-03:04:05" {
		t.Errorf("stamped version/date overwritten: %q %q", version.Version, version.BuildDate)
	}
}
