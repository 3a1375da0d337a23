package deploy_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	yamlv2 "go.yaml.in/yaml/v2"

	"github.com/sparkglance/sparkglance/deploy"
)

// loadCompose loads deploy/compose/compose.yaml with compose-go, the loader
// docker compose itself uses, with this process' environment and the
// file's own directory as the project directory: what `docker compose -f
// deploy/compose/compose.yaml up` would run.
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{filepath.Join("compose", "compose.yaml")},
		cli.WithOsEnv, cli.WithDotEnv, cli.WithResolvedPaths(true))
	if err != nil {
		t.Fatal(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("compose/compose.yaml: %v", err)
	}
	return project
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// The compose stack runs the released image (no compile step) beside
// Prometheus with the rule file, Alertmanager, Grafana and an
// OpenTelemetry Collector receiving the OTLP push; every file it mounts is
// in the repository and every address it names reaches a service.
func TestComposeStack(t *testing.T) {
	project := loadCompose(t)
	repoRoot, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	names := project.ServiceNames()
	slices.Sort(names)
	if want := []string{"alertmanager", "grafana", "otel-collector", "prometheus", "sparkglance"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}

	sg := project.Services["sparkglance"]
	version, err := deploy.ReadVersion("..")
	if err != nil {
		t.Fatal(err)
	}
	if sg.Image != deploy.Image(version) || sg.Build != nil {
		t.Errorf("sparkglance runs image %q (build %v), want the released %s and no build", sg.Image, sg.Build, deploy.Image(version))
	}
	if len(sg.Command) < 2 || sg.Command[0] != "serve" || !slices.Contains(sg.Command, "--demo") {
		t.Errorf("sparkglance runs %v, want serve --demo", sg.Command)
	}
	// The image's root is read-only; the demo writes its log to a tmpfs.
	if !sg.ReadOnly || !slices.Contains([]string(sg.Tmpfs), "/tmp") {
		t.Errorf("sparkglance read_only %v, tmpfs %v: want a read-only root and /tmp on tmpfs", sg.ReadOnly, sg.Tmpfs)
	}

	// The OTLP push goes to the collector service's gRPC receiver, in plain
	// text as the collector config has no TLS.
	endpoint, ok := flagValue(sg.Command, "otlp.endpoint")
	if !ok {
		t.Fatalf("sparkglance %v pushes no OTLP", sg.Command)
	}
	host, port, err := net.SplitHostPort(endpoint)
	if err != nil {
		t.Fatalf("--otlp.endpoint=%s: %v", endpoint, err)
	}
	if _, ok := project.Services[host]; !ok || !strings.Contains(project.Services[host].Image, "opentelemetry-collector") {
		t.Errorf("--otlp.endpoint=%s: %q is not the OpenTelemetry Collector service", endpoint, host)
	}
	if _, grpcPort := collectorReceiverPorts(t); port != grpcPort {
		t.Errorf("--otlp.endpoint=%s, but the collector's OTLP gRPC receiver listens on port %s", endpoint, grpcPort)
	}
	if protocol, _ := flagValue(sg.Command, "otlp.protocol"); protocol != "" && protocol != "grpc" {
		t.Errorf("--otlp.protocol=%s to the gRPC port", protocol)
	}
	if !slices.Contains(sg.Command, "--otlp.insecure") {
		t.Error("the collector has no TLS: sparkglance needs --otlp.insecure")
	}
	if !slices.Contains(project.Services["otel-collector"].Command, "--config="+mountTarget(t, project, "otel-collector", "otel-collector/config.yaml")) {
		t.Errorf("otel-collector runs %v, not with the mounted deploy/otel-collector/config.yaml", project.Services["otel-collector"].Command)
	}

	// Every bind mount is a file or directory of this repository.
	for name, s := range project.Services {
		for _, v := range s.Volumes {
			if v.Type != types.VolumeTypeBind {
				continue
			}
			rel, err := filepath.Rel(repoRoot, v.Source)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s mounts %s, outside the repository", name, v.Source)
				continue
			}
			if _, err := os.Stat(v.Source); err != nil {
				t.Errorf("%s mounts %s: %v", name, rel, err)
			}
			if !v.ReadOnly {
				t.Errorf("%s mounts %s read-write", name, rel)
			}
		}
	}

	// The published ports, on loopback only.
	for name, want := range map[string]uint32{"sparkglance": 18090, "prometheus": 9090, "alertmanager": 9093, "grafana": 3000} {
		ports := project.Services[name].Ports
		if len(ports) != 1 || ports[0].Target != want || ports[0].Published != strconv.Itoa(int(want)) || ports[0].HostIP != "127.0.0.1" {
			t.Errorf("%s publishes %+v, want 127.0.0.1:%d:%d", name, ports, want, want)
		}
	}
	if listen, _ := flagValue(sg.Command, "web.listen-address"); listen != ":18090" {
		t.Errorf("sparkglance listens on %q, its published port is 18090", listen)
	}

	// Prometheus scrapes the sparkglance service, alerts the alertmanager
	// service, and its config is valid with the rule file where the
	// container sees it.
	promCfg := mountSource(t, project, "prometheus", "/etc/prometheus/prometheus.yml")
	var prom struct {
		RuleFiles []string `yaml:"rule_files"`
		Alerting  struct {
			Alertmanagers []struct {
				StaticConfigs []struct{ Targets []string } `yaml:"static_configs"`
			}
		}
		ScrapeConfigs []struct {
			StaticConfigs []struct{ Targets []string } `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	b, err := os.ReadFile(promCfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := yamlv2.Unmarshal(b, &prom); err != nil {
		t.Fatal(err)
	}
	if len(prom.ScrapeConfigs) == 0 || !slices.Contains(prom.ScrapeConfigs[0].StaticConfigs[0].Targets, "sparkglance:18090") {
		t.Errorf("compose Prometheus scrapes %+v, want sparkglance:18090", prom.ScrapeConfigs)
	}
	if len(prom.Alerting.Alertmanagers) == 0 || !slices.Contains(prom.Alerting.Alertmanagers[0].StaticConfigs[0].Targets, "alertmanager:9093") {
		t.Errorf("compose Prometheus alerts %+v, want alertmanager:9093", prom.Alerting.Alertmanagers)
	}
	// promtool checks the config with the rule files it names; give it the
	// host files mounted at those paths.
	hostCfg := string(b)
	for _, rf := range prom.RuleFiles {
		hostCfg = strings.ReplaceAll(hostCfg, rf, mountSource(t, project, "prometheus", rf))
	}
	checked := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(checked, []byte(hostCfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(t, "promtool", "check", "config", checked); !strings.Contains(out, "SUCCESS: "+ruleCount()+" rules found") {
		t.Errorf("compose Prometheus config: the rule file was not checked with it:\n%s", out)
	}

	// Grafana: the data source is the prometheus service, the dashboards
	// provider reads the mounted dashboards, and the home dashboard exists.
	provisioning := mountSource(t, project, "grafana", "/etc/grafana/provisioning")
	var ds struct {
		APIVersion  int `yaml:"apiVersion"`
		Datasources []struct{ Type, URL string }
	}
	readYAML(t, filepath.Join(provisioning, "datasources", "prometheus.yaml"), &ds)
	if ds.APIVersion != 1 || len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" || ds.Datasources[0].URL != "http://prometheus:9090" {
		t.Errorf("Grafana data sources %+v, want the prometheus service", ds)
	}
	var providers struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Options struct{ Path string }
		}
	}
	readYAML(t, filepath.Join(provisioning, "dashboards", "sparkglance.yaml"), &providers)
	if providers.APIVersion != 1 || len(providers.Providers) != 1 {
		t.Fatalf("Grafana dashboard providers %+v", providers)
	}
	boards := mountSource(t, project, "grafana", providers.Providers[0].Options.Path)
	if rel, _ := filepath.Rel(repoRoot, boards); rel != "dashboards" {
		t.Errorf("Grafana's dashboards provider reads %s, want the repository's dashboards/", boards)
	}
	home := project.Services["grafana"].Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
	if home == nil {
		t.Fatal("grafana: no home dashboard")
	}
	if _, err := os.Stat(mountSource(t, project, "grafana", *home)); err != nil {
		t.Errorf("grafana home dashboard %s: %v", *home, err)
	}
}

// mountSource returns the host path that service sees at containerPath:
// the bind mount's source, or the path below it.
func mountSource(t *testing.T, project *types.Project, service, containerPath string) string {
	t.Helper()
	for _, v := range project.Services[service].Volumes {
		if v.Type != types.VolumeTypeBind {
			continue
		}
		if rel, err := filepath.Rel(v.Target, containerPath); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join(v.Source, rel)
		}
	}
	t.Fatalf("%s: nothing mounted at %s", service, containerPath)
	return ""
}

// mountTarget returns where service sees the file deploy/<rel>.
func mountTarget(t *testing.T, project *types.Project, service, rel string) string {
	t.Helper()
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range project.Services[service].Volumes {
		if v.Type == types.VolumeTypeBind && v.Source == abs {
			return v.Target
		}
	}
	t.Fatalf("%s does not mount deploy/%s", service, rel)
	return ""
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yamlv2.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
