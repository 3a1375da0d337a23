package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/version"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// `make build` stamps the version, revision, branch, build user and date;
// the binary must show them in --version and in sparkglance_build_info.
func TestMakeBuildStampsVersion(t *testing.T) {
	makeTool := testkit.RequireTool(t, "make")
	gitTool := testkit.RequireTool(t, "git")
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		out, err := exec.Command(gitTool, append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	revision, branch := git("rev-parse", "HEAD"), git("rev-parse", "--abbrev-ref", "HEAD")
	// Version, user and date are given on the command line (as a release
	// job would) so the test knows them; revision and branch come from git.
	const stampedVersion, user, date = "v9.8.7-stamp", "tester@ci", "20260102-03:04:05"
	bin := filepath.Join(t.TempDir(), "sparkglance")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, makeTool, "-s", "-C", root, "build", "BIN="+bin,
		"VERSION="+stampedVersion, "BUILD_USER="+user, "BUILD_DATE="+date).CombinedOutput()
	if err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}

	got, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("sparkglance --version: %v\n%s", err, got)
	}
	for _, want := range []string{
		"sparkglance, version " + stampedVersion + " (branch: " + branch + ", revision: " + revision + ")",
		"build user:       " + user,
		"build date:       " + date,
		"go version:       " + version.GoVersion,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("--version lacks %q:\n%s", want, got)
		}
	}

	addr := testkit.FreeLoopbackAddr(t)
	serve := exec.CommandContext(ctx, bin, "serve", "--web.listen-address="+addr, "--log.level=error")
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = serve.Process.Kill(); _ = serve.Wait() }()
	body := testkit.PollGet("http://"+addr+"/metrics", 30*time.Second, 50*time.Millisecond, func(b string) bool {
		return strings.Contains(b, "sparkglance_build_info{")
	})
	for _, label := range []string{
		`version="` + stampedVersion + `"`, `revision="` + revision + `"`, `branch="` + branch + `"`,
		`goversion="` + version.GoVersion + `"`,
	} {
		if !strings.Contains(buildInfoLine(body), label) {
			t.Errorf("sparkglance_build_info lacks %s:\n%s", label, buildInfoLine(body))
		}
	}
}

func buildInfoLine(exposition string) string {
	for line := range strings.Lines(exposition) {
		if strings.HasPrefix(line, "sparkglance_build_info{") {
			return line
		}
	}
	return ""
}

// A plain `go build` (no -ldflags) says so instead of leaving labels empty.
func TestUnstampedBuildSaysDevel(t *testing.T) {
	for _, v := range []string{version.Version, version.Branch, version.BuildUser, version.BuildDate, version.GetRevision()} {
		if v == "" {
			t.Errorf("an unstamped build leaves a version field empty: %q", versionString())
		}
	}
	if !strings.Contains(versionString(), "build user:       unknown") {
		t.Errorf("--version of a test binary should say the build user is unknown:\n%s", versionString())
	}
}
