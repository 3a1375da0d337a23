//go:build e2e

package deploy_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/deploy"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// podmanEnv returns the environment podman runs with here: this machine's
// kernel refuses the rlimits podman sets by default and has no systemd for
// cgroups, so podman reads the containers.conf deploy/README.md documents
// for such hosts (not the user's).
func podmanEnv(t *testing.T) []string {
	t.Helper()
	conf, err := filepath.Abs(filepath.Join("podman", "containers.conf"))
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "CONTAINERS_CONF="+conf)
}

// command runs name with args (under ctx, in dir if not empty) and returns
// its combined output, failing the test on an error.
func command(ctx context.Context, t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestImage builds the image with `make image` (podman) and runs it as a
// user would: --version, then `serve --demo` with a read-only root
// filesystem, scraped through a port published on loopback, as non-root.
func TestImage(t *testing.T) {
	podman := testkit.RequireTool(t, "podman")
	testkit.RequireTool(t, "runc")
	makeTool := testkit.RequireTool(t, "make")
	gitTool := testkit.RequireTool(t, "git")
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Minute)
	defer cancel()
	env := podmanEnv(t)
	version, err := deploy.ReadVersion("..")
	if err != nil {
		t.Fatal(err)
	}
	revision := strings.TrimSpace(command(ctx, t, nil, "..", gitTool, "rev-parse", "HEAD"))

	// A repository of the test's own, so that a user's image is left alone;
	// the tag is the one `make image` gives.
	repo := fmt.Sprintf("localhost/sparkglance-e2e-%d", os.Getpid())
	image := repo + ":" + version
	command(ctx, t, env, "..", makeTool, "image", "CONTAINER_ENGINE="+podman, "IMAGE_REPO="+repo)
	t.Cleanup(func() { _ = exec.Command(podman, "rmi", "--force", image).Run() })

	var inspect []struct {
		Config struct {
			User         string
			Entrypoint   []string
			Cmd          []string
			ExposedPorts map[string]struct{}
			Labels       map[string]string
		}
	}
	if err := json.Unmarshal([]byte(command(ctx, t, env, "", podman, "image", "inspect", image)), &inspect); err != nil || len(inspect) != 1 {
		t.Fatalf("podman image inspect %s: %v", image, err)
	}
	cfg := inspect[0].Config
	if !slices.Equal(cfg.Entrypoint, []string{"sparkglance"}) || !slices.Equal(cfg.Cmd, []string{"serve"}) {
		t.Errorf("entrypoint %v, cmd %v; want [sparkglance] [serve]", cfg.Entrypoint, cfg.Cmd)
	}
	if _, ok := cfg.ExposedPorts["18090/tcp"]; !ok {
		t.Errorf("exposed ports %v, want 18090/tcp", cfg.ExposedPorts)
	}
	for label, want := range map[string]string{
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": revision,
		"org.opencontainers.image.source":   "https://github.com/sparkglance/sparkglance",
		"org.opencontainers.image.licenses": "Apache-2.0",
	} {
		if cfg.Labels[label] != want {
			t.Errorf("label %s = %q, want %q", label, cfg.Labels[label], want)
		}
	}

	run := []string{"run", "--runtime", "runc"}
	out := command(ctx, t, env, "", podman, append(run, "--rm", image, "--version")...)
	if !strings.Contains(out, "sparkglance, version "+version+" (branch: ") || !strings.Contains(out, "revision: "+revision) {
		t.Errorf("--version in the image:\n%s", out)
	}

	// The demo on a read-only root: podman's own tmpfs on /tmp is turned
	// off and one is given explicitly, as docker and Kubernetes need it.
	addr := testkit.FreeLoopbackAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	name := fmt.Sprintf("sparkglance-e2e-%d", os.Getpid())
	command(ctx, t, env, "", podman, append(run, "--detach", "--name", name, "--read-only", "--read-only-tmpfs=false",
		"--tmpfs", "/tmp", "--publish", "127.0.0.1:"+port+":18090", image, "serve", "--demo")...)
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := exec.Command(podman, "logs", name).CombinedOutput()
			t.Logf("container logs:\n%s", logs)
		}
		_ = exec.Command(podman, "rm", "--force", name).Run()
	})
	body := testkit.PollGet("http://"+addr+"/metrics", 2*time.Minute, 200*time.Millisecond, func(b string) bool {
		return strings.Contains(b, "\nspark_app_")
	})
	if !strings.Contains(body, "\nspark_app_") || !strings.Contains(body, `sparkglance_build_info{`) || !strings.Contains(body, `version="`+version+`"`) {
		t.Fatalf("no demo application in /metrics through %s:\n%.2000s", addr, body)
	}

	// As non-root, on a read-only root filesystem.
	state := strings.Fields(command(ctx, t, env, "", podman, "inspect", "--format", "{{.State.Pid}} {{.HostConfig.ReadonlyRootfs}}", name))
	if len(state) != 2 || state[1] != "true" {
		t.Errorf("container pid and read-only root: %v, want a read-only root", state)
	}
	pid, err := strconv.Atoi(state[0])
	if err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if ids, ok := strings.CutPrefix(line, "Uid:"); ok {
			for _, id := range strings.Fields(ids) {
				if id == "0" {
					t.Errorf("the container's process runs as root: Uid:%s", ids)
				}
			}
		}
	}
}

// TestRelease runs `make release` into a temporary directory: an archive
// per platform in promu's layout with the binary for that platform, the
// licence, README, dashboards and rule files, and sums that match.
func TestRelease(t *testing.T) {
	makeTool := testkit.RequireTool(t, "make")
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Minute)
	defer cancel()
	const version = "9.8.7-e2e"
	dir, build := t.TempDir(), t.TempDir()
	command(ctx, t, nil, "..", makeTool, "release", "VERSION="+version, "RELEASE_DIR="+dir, "BUILD_DIR="+build)

	// What every archive holds beside the binary.
	boards, err := filepath.Glob("../dashboards/*.json")
	if err != nil || len(boards) == 0 {
		t.Fatalf("dashboards: %v %v", boards, err)
	}
	files := []string{"sparkglance", "LICENSE", "README.md", "alerts/sparkglance-rules.yml", "alerts/sparkglance-otlp-rules.yml"}
	for _, b := range boards {
		files = append(files, "dashboards/"+filepath.Base(b))
	}
	slices.Sort(files)

	sums := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, "sha256sums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		sum, name, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok {
			t.Fatalf("sha256sums.txt: %q is not '<sum>  <file>'", line)
		}
		sums[name] = sum
	}

	platforms := map[string]string{"linux/amd64": "", "linux/arm64": "", "darwin/amd64": "", "darwin/arm64": ""}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(platforms)+1 {
		t.Errorf("%d files in the release directory, want %d archives and sha256sums.txt", len(entries), len(platforms))
	}
	for platform := range platforms {
		goos, goarch, _ := strings.Cut(platform, "/")
		top := fmt.Sprintf("sparkglance-%s.%s-%s", version, goos, goarch)
		archive := filepath.Join(dir, top+".tar.gz")
		got, bin := readRelease(t, archive, top, filepath.Join(build, "unpacked", goos+"-"+goarch))
		if !slices.Equal(got, files) {
			t.Errorf("%s holds %v, want %v", filepath.Base(archive), got, files)
		}
		if err := checkBinaryPlatform(bin, goos, goarch); err != nil {
			t.Errorf("%s: %v", filepath.Base(archive), err)
		}
		if sum := fileSHA256(t, archive); sums[filepath.Base(archive)] != sum {
			t.Errorf("sha256sums.txt says %s for %s, its sum is %s", sums[filepath.Base(archive)], filepath.Base(archive), sum)
		}
		if goos == runtime.GOOS && goarch == runtime.GOARCH {
			out := command(ctx, t, nil, "", bin, "--version")
			if !strings.Contains(out, "sparkglance, version "+version+" (branch: ") {
				t.Errorf("%s --version:\n%s", filepath.Base(archive), out)
			}
		}
	}
}

// readRelease lists the files of a release archive relative to its one
// top directory, and unpacks its binary into dir.
func readRelease(t *testing.T, archive, top, dir string) (files []string, bin string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		rel, ok := strings.CutPrefix(h.Name, top+"/")
		if !ok {
			t.Errorf("%s: %s is outside the top directory %s/", archive, h.Name, top)
			continue
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		files = append(files, rel)
		if rel == "sparkglance" {
			if h.Mode&0o111 == 0 {
				t.Errorf("%s: the binary is not executable (%o)", archive, h.Mode)
			}
			bin = filepath.Join(dir, "sparkglance")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(files)
	if bin == "" {
		t.Fatalf("%s: no binary", archive)
	}
	return files, bin
}

// checkBinaryPlatform reads the executable's header: ELF for linux,
// Mach-O for darwin, of the right architecture.
func checkBinaryPlatform(path, goos, goarch string) error {
	machines := map[string]struct {
		elf   elf.Machine
		macho macho.Cpu
	}{"amd64": {elf.EM_X86_64, macho.CpuAmd64}, "arm64": {elf.EM_AARCH64, macho.CpuArm64}}
	want := machines[goarch]
	switch goos {
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			return fmt.Errorf("not an ELF binary: %w", err)
		}
		defer f.Close()
		if f.Machine != want.elf {
			return fmt.Errorf("ELF for %s, want %s", f.Machine, want.elf)
		}
		// Static (CGO_ENABLED=0): no dynamic loader to run it with.
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				return fmt.Errorf("dynamically linked, want a static binary")
			}
		}
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			return fmt.Errorf("not a Mach-O binary: %w", err)
		}
		defer f.Close()
		if f.Cpu != want.macho {
			return fmt.Errorf("Mach-O for %s, want %s", f.Cpu, want.macho)
		}
	}
	return nil
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
