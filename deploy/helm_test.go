package deploy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/dashboards"
	"github.com/sparkglance/sparkglance/deploy"
)

const (
	chartDir      = deploy.HelmChartDir
	allValuesFile = deploy.HelmChartDir + "/ci/all-values.yaml"
	releaseName   = "sg"
	namespace     = "monitoring"
)

// chartValues reads the values files in order and merges overrides (YAML)
// on top, as `helm template -f a.yaml -f b.yaml` does.
func chartValues(t *testing.T, files []string, overrides string) map[string]any {
	t.Helper()
	vals := map[string]any{}
	for _, f := range files {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		vals = mergeValues(vals, v.AsMap())
	}
	if overrides != "" {
		v, err := chartutil.ReadValues([]byte(overrides))
		if err != nil {
			t.Fatalf("overrides %q: %v", overrides, err)
		}
		vals = mergeValues(vals, v.AsMap())
	}
	return vals
}

// mergeValues merges src into dst the way helm merges -f files: maps
// deeply, everything else replaced.
func mergeValues(dst, src map[string]any) map[string]any {
	out := maps.Clone(dst)
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// renderChart renders the chart as `helm template` does against a cluster
// that serves the prometheus-operator CRDs (monitoring) or not, checking
// the values against values.schema.json unless schema is false.
func renderChart(t *testing.T, vals map[string]any, monitoring, schema bool) (map[string]string, error) {
	t.Helper()
	ch := loadChart(t)
	caps := chartutil.DefaultCapabilities.Copy()
	if monitoring {
		caps.APIVersions = append(slices.Clone(caps.APIVersions), "monitoring.coreos.com/v1",
			"monitoring.coreos.com/v1/ServiceMonitor", "monitoring.coreos.com/v1/PodMonitor", "monitoring.coreos.com/v1/PrometheusRule")
	}
	rv, err := chartutil.ToRenderValuesWithSchemaValidation(ch, vals,
		chartutil.ReleaseOptions{Name: releaseName, Namespace: namespace, IsInstall: true}, caps, !schema)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, rv)
}

// rendered holds every object a render made, decoded strictly.
type rendered struct {
	objs  []any
	notes string
}

func render(t *testing.T, vals map[string]any, monitoring bool) rendered {
	t.Helper()
	out, err := renderChart(t, vals, monitoring, true)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	var r rendered
	names := slices.Sorted(maps.Keys(out))
	for _, name := range names {
		switch {
		case strings.HasSuffix(name, "NOTES.txt"):
			r.notes = out[name]
		case strings.HasSuffix(name, ".yaml"):
			r.objs = append(r.objs, decodeObjects(t, name, []byte(out[name]))...)
		}
	}
	return r
}

// all returns the rendered objects of type T.
func all[T any](r rendered) []T {
	var out []T
	for _, o := range r.objs {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func only[T any](t *testing.T, r rendered) T {
	t.Helper()
	objs := all[T](r)
	if len(objs) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1", len(objs), zero)
	}
	return objs[0]
}

func lintChart(t *testing.T, vals map[string]any) {
	t.Helper()
	linter := lint.All(chartDir, vals, namespace, false)
	for _, m := range linter.Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint: %s", m)
		} else {
			t.Logf("helm lint: %s", m)
		}
	}
}

func TestHelmLint(t *testing.T) {
	t.Run("default values", func(t *testing.T) { lintChart(t, chartValues(t, nil, "")) })
	t.Run("all values", func(t *testing.T) { lintChart(t, chartValues(t, []string{allValuesFile}, "")) })
}

// The image is the one `make image` tags: repository:appVersion, never a
// moving tag; appVersion is the VERSION file's when there is one.
func TestHelmImageIsAppVersion(t *testing.T) {
	ch := loadChart(t)
	app := ch.Metadata.AppVersion
	if app == "" || app == "latest" {
		t.Fatalf("appVersion %q: want the released version", app)
	}
	if b, err := os.ReadFile(filepath.Join("..", "VERSION")); err == nil {
		if v := strings.TrimSpace(string(b)); v != app {
			t.Errorf("appVersion %s, VERSION file %s: the chart would run another image than `make image` builds", app, v)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	want := "ghcr.io/sparkglance/sparkglance:" + app
	for _, files := range [][]string{nil, {allValuesFile}} {
		r := render(t, chartValues(t, files, ""), true)
		for _, c := range containers(r) {
			if c.Image != want {
				t.Errorf("values %v: container %s runs %s, want %s", files, c.Name, c.Image, want)
			}
		}
	}
	r := render(t, chartValues(t, nil, "image: {tag: 9.9.9}"), false)
	for _, c := range containers(r) {
		if c.Image != "ghcr.io/sparkglance/sparkglance:9.9.9" {
			t.Errorf("image.tag 9.9.9: container %s runs %s", c.Name, c.Image)
		}
	}
}

func containers(r rendered) []corev1.Container {
	var out []corev1.Container
	for _, p := range podSpecs(r) {
		out = append(out, p.Containers...)
	}
	return out
}

func podSpecs(r rendered) []corev1.PodSpec {
	var out []corev1.PodSpec
	for _, d := range all[*appsv1.Deployment](r) {
		out = append(out, d.Spec.Template.Spec)
	}
	for _, s := range all[*appsv1.StatefulSet](r) {
		out = append(out, s.Spec.Template.Spec)
	}
	for _, d := range all[*appsv1.DaemonSet](r) {
		out = append(out, d.Spec.Template.Spec)
	}
	return out
}

func kinds(r rendered) []string {
	var out []string
	for _, o := range r.objs {
		out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", o), "*"))
	}
	sort.Strings(out)
	return out
}

// The default values render what the kustomize base holds; the
// prometheus-operator objects only where the cluster serves their CRDs.
func TestHelmDefaultValues(t *testing.T) {
	vals := chartValues(t, nil, "")
	without := render(t, vals, false)
	want := []string{"v1.ConfigMap", "v1.ConfigMap", "v1.ConfigMap", "v1.DaemonSet", "v1.Deployment", "v1.Service", "v1.ServiceAccount"} // a ConfigMap per dashboard
	if got := kinds(without); !slices.Equal(got, want) {
		t.Errorf("without the monitoring CRDs: %v, want %v", got, want)
	}
	if !strings.Contains(without.notes, "no ServiceMonitor") {
		t.Errorf("NOTES do not say the monitors were left out:\n%s", without.notes)
	}
	r := render(t, vals, true)
	want = append(want, "v1.PodMonitor", "v1.PrometheusRule", "v1.ServiceMonitor")
	sort.Strings(want)
	if got := kinds(r); !slices.Equal(got, want) {
		t.Errorf("with the monitoring CRDs: %v, want %v", got, want)
	}
	for _, switchOff := range []string{"serviceMonitor", "podMonitor", "prometheusRule"} {
		off := render(t, chartValues(t, nil, switchOff+": {enabled: false}"), true)
		if n := len(off.objs); n != len(r.objs)-1 {
			t.Errorf("%s.enabled=false: %d objects, want %d", switchOff, n, len(r.objs)-1)
		}
	}

	// The same security as the kustomize base, field for field.
	baseDep := one[*appsv1.Deployment](t, "kubernetes/base/deployment.yaml")
	baseDS := one[*appsv1.DaemonSet](t, "kubernetes/base/daemonset.yaml")
	dep := only[*appsv1.Deployment](t, r)
	ds := only[*appsv1.DaemonSet](t, r)
	sameSecurity(t, "Deployment", dep.Spec.Template.Spec, baseDep.Spec.Template.Spec)
	sameSecurity(t, "DaemonSet", ds.Spec.Template.Spec, baseDS.Spec.Template.Spec)
	if psc := dep.Spec.Template.Spec.SecurityContext; psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("the event-log exporter does not run as non-root")
	}
	for _, c := range containers(r) {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			t.Errorf("container %s security %+v: want a read-only root, no privilege escalation, all capabilities dropped", c.Name, sc)
		}
		if !reflect.DeepEqual(c.Resources.Limits, baseResources(baseDep, baseDS, c, dep).Limits) {
			t.Errorf("container %s limits %v differ from the kustomize base's", c.Name, c.Resources.Limits)
		}
	}
	for _, p := range podSpecs(r) {
		if p.SecurityContext == nil || p.SecurityContext.SeccompProfile == nil || p.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("pod without the RuntimeDefault seccomp profile: %+v", p.SecurityContext)
		}
	}

	// Without stack sampling the node agent neither shares the host's PID
	// namespace nor holds a capability.
	agent := ds.Spec.Template.Spec
	if agent.HostPID {
		t.Error("hostPID without stack sampling")
	}
	if caps := agent.Containers[0].SecurityContext.Capabilities; len(caps.Add) != 0 {
		t.Errorf("node agent adds %v without stack sampling", caps.Add)
	}
	if slices.Contains(agent.Containers[0].Args, "--collector.stacks") {
		t.Error("stack sampling is on by default")
	}

	args := dep.Spec.Template.Spec.Containers[0].Args
	for _, a := range []string{"serve", "--web.listen-address=:18090", "--collector.eventlog", "--eventlog.dir=/spark-events",
		"--eventlog.retention=1h", "--collector.spark", "--no-collector.process", "--no-collector.stacks"} {
		if !slices.Contains(args, a) {
			t.Errorf("event-log exporter args %v lack %s", args, a)
		}
	}
	vol := dep.Spec.Template.Spec.Volumes[0]
	if vol.PersistentVolumeClaim == nil || vol.PersistentVolumeClaim.ClaimName != "spark-events" || !vol.PersistentVolumeClaim.ReadOnly {
		t.Errorf("event-log volume %+v: want the claim spark-events, read-only", vol)
	}
	checkPortsAndSelectors(t, r, 18090)
	checkRulesAndDashboards(t, r)
}

// baseResources returns the kustomize base's resources of the container
// matching c (the exporter's or the node agent's).
func baseResources(baseDep *appsv1.Deployment, baseDS *appsv1.DaemonSet, c corev1.Container, dep *appsv1.Deployment) corev1.ResourceRequirements {
	if reflect.DeepEqual(c.Args, dep.Spec.Template.Spec.Containers[0].Args) {
		return baseDep.Spec.Template.Spec.Containers[0].Resources
	}
	return baseDS.Spec.Template.Spec.Containers[0].Resources
}

func sameSecurity(t *testing.T, what string, got, base corev1.PodSpec) {
	t.Helper()
	if !reflect.DeepEqual(got.SecurityContext, base.SecurityContext) {
		t.Errorf("%s pod security %+v, kustomize base %+v", what, got.SecurityContext, base.SecurityContext)
	}
	if !reflect.DeepEqual(got.Containers[0].SecurityContext, base.Containers[0].SecurityContext) {
		t.Errorf("%s container security %+v, kustomize base %+v", what, got.Containers[0].SecurityContext, base.Containers[0].SecurityContext)
	}
	if got.HostNetwork || base.HostNetwork {
		t.Errorf("%s on the host network", what)
	}
}

// Every container listens on port, named metrics; the Service targets that
// name and selects the exporter's pods; the ServiceMonitor selects the
// Service (and no headless one), the PodMonitor the node agents.
func checkPortsAndSelectors(t *testing.T, r rendered, port int32) {
	t.Helper()
	for _, c := range containers(r) {
		if len(c.Ports) != 1 || c.Ports[0].Name != "metrics" || c.Ports[0].ContainerPort != port ||
			!slices.Contains(c.Args, fmt.Sprintf("--web.listen-address=:%d", port)) {
			t.Errorf("container %s ports %+v args %v: want metrics on %d", c.Name, c.Ports, c.Args, port)
		}
	}
	var exporterPods labels.Set
	for _, d := range all[*appsv1.Deployment](r) {
		exporterPods = d.Spec.Template.Labels
		if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(exporterPods) {
			t.Error("the Deployment's selector does not match its pods")
		}
	}
	for _, s := range all[*appsv1.StatefulSet](r) {
		exporterPods = s.Spec.Template.Labels
		if !labels.SelectorFromSet(s.Spec.Selector.MatchLabels).Matches(exporterPods) {
			t.Error("the StatefulSet's selector does not match its pods")
		}
	}
	ds := only[*appsv1.DaemonSet](t, r)
	agentPods := labels.Set(ds.Spec.Template.Labels)
	if !labels.SelectorFromSet(ds.Spec.Selector.MatchLabels).Matches(agentPods) {
		t.Error("the DaemonSet's selector does not match its pods")
	}
	var scraped *corev1.Service
	sm := only[*monitoringv1.ServiceMonitor](t, r)
	smSel := labels.SelectorFromSet(sm.Spec.Selector.MatchLabels)
	for _, svc := range all[*corev1.Service](r) {
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		if !sel.Matches(exporterPods) || sel.Matches(agentPods) {
			t.Errorf("Service %s selects %v: not exactly the exporter's pods", svc.Name, svc.Spec.Selector)
		}
		if p := svc.Spec.Ports; len(p) != 1 || p[0].Port != port || p[0].TargetPort.StrVal != "metrics" {
			t.Errorf("Service %s ports %+v: want %d to the metrics port", svc.Name, p, port)
		}
		if smSel.Matches(labels.Set(svc.Labels)) {
			if scraped != nil {
				t.Errorf("the ServiceMonitor selects both %s and %s: pods would be scraped twice", scraped.Name, svc.Name)
			}
			scraped = svc
		}
	}
	if scraped == nil || scraped.Spec.ClusterIP == corev1.ClusterIPNone {
		t.Fatalf("the ServiceMonitor selects no ClusterIP Service: %+v", scraped)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != scraped.Spec.Ports[0].Name {
		t.Errorf("ServiceMonitor endpoints %+v do not scrape the Service's port %s", sm.Spec.Endpoints, scraped.Spec.Ports[0].Name)
	}
	pm := only[*monitoringv1.PodMonitor](t, r)
	if !labels.SelectorFromSet(pm.Spec.Selector.MatchLabels).Matches(agentPods) ||
		labels.SelectorFromSet(pm.Spec.Selector.MatchLabels).Matches(exporterPods) {
		t.Errorf("PodMonitor selects %v: not exactly the node agents", pm.Spec.Selector.MatchLabels)
	}
	if len(pm.Spec.PodMetricsEndpoints) != 1 || pm.Spec.PodMetricsEndpoints[0].Port == nil || *pm.Spec.PodMetricsEndpoints[0].Port != "metrics" {
		t.Errorf("PodMonitor endpoints %+v: want the metrics port", pm.Spec.PodMetricsEndpoints)
	}
}

// The PrometheusRule's groups are alerts/sparkglance-rules.yml's, compared
// as parsed structures; a ConfigMap per dashboard for Grafana's sidecar
// holds dashboards/'s JSON.
func checkRulesAndDashboards(t *testing.T, r rendered) {
	t.Helper()
	pr := only[*monitoringv1.PrometheusRule](t, r)
	ruleFile, err := os.ReadFile(filepath.Join("..", "alerts", alerts.RuleFile))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []any `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(ruleFile, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Groups) == 0 {
		t.Fatal("no groups in the rule file")
	}
	b, err := json.Marshal(pr.Spec.Groups)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, file.Groups) {
		t.Errorf("the PrometheusRule's groups differ from %s:\n%s\nwant\n%s", alerts.RuleFile, b, mustJSON(t, file.Groups))
	}

	boards, err := dashboards.Files()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, cm := range all[*corev1.ConfigMap](r) {
		if cm.Labels["grafana_dashboard"] != "1" {
			continue
		}
		for name, data := range cm.Data {
			found[name] = true
			for _, f := range boards {
				if f.Name == name && data != string(f.JSON) {
					t.Errorf("dashboard ConfigMap %s: %s differs from dashboards/%s", cm.Name, name, name)
				}
			}
		}
	}
	for _, f := range boards {
		if !found[f.Name] {
			t.Errorf("no ConfigMap labelled grafana_dashboard=1 holds %s", f.Name)
		}
	}
	if len(found) != len(boards) {
		t.Errorf("dashboard ConfigMaps hold %v, dashboards/ has %d", found, len(boards))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ci/all-values.yaml: shards, stack sampling, the web configuration, an
// object store with credentials, every list and map value.
func TestHelmAllValues(t *testing.T) {
	r := render(t, chartValues(t, []string{allValuesFile}, ""), true)
	if n := len(all[*appsv1.Deployment](r)); n != 0 {
		t.Errorf("%d Deployments beside the StatefulSet", n)
	}
	sts := only[*appsv1.StatefulSet](t, r)
	pod := sts.Spec.Template.Spec
	args := pod.Containers[0].Args
	if *sts.Spec.Replicas != 3 || sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("StatefulSet replicas %d, pod management %s: want 3 shards in parallel", *sts.Spec.Replicas, sts.Spec.PodManagementPolicy)
	}
	for _, a := range []string{"--eventlog.total-shards=3", "--eventlog.shard-from-hostname", "--no-collector.spark",
		"--eventlog.dir=s3a://spark-logs/events", "--eventlog.retention=2h", "--eventlog.executor-metrics=summary",
		"--eventlog.max-executors-per-app=200", "--eventlog.poll-interval=2s", "--web.config.file=/etc/sparkglance/web/web-config.yml"} {
		if !slices.Contains(args, a) {
			t.Errorf("shard args %v lack %s", args, a)
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--eventlog.shard=") || strings.HasPrefix(a, "--spark.") || a == "--collector.spark" {
			t.Errorf("%s in a StatefulSet whose pods all run the same arguments", a)
		}
	}
	var headless *corev1.Service
	for _, svc := range all[*corev1.Service](r) {
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			headless = svc
		}
	}
	if headless == nil || sts.Spec.ServiceName != headless.Name {
		t.Errorf("StatefulSet's governing service %q is not the headless Service %+v", sts.Spec.ServiceName, headless)
	}
	if n := len(all[*corev1.ConfigMap](r)); n != 3 {
		t.Errorf("%d ConfigMaps, want only the 3 dashboards (no Spark targets in shards)", n)
	}

	// Object-store credentials from the Secret.
	env := map[string]corev1.EnvVar{}
	for _, e := range pod.Containers[0].Env {
		env[e.Name] = e
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY"} {
		e, ok := env[k]
		if !ok || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "spark-logs-credentials" || e.ValueFrom.SecretKeyRef.Key != k {
			t.Errorf("env %s = %+v: want key %s of Secret spark-logs-credentials", k, e, k)
		}
	}
	if env["GOMEMLIMIT"].Value != "1800MiB" {
		t.Errorf("extraEnv GOMEMLIMIT not passed: %+v", env["GOMEMLIMIT"])
	}
	gac := env["GOOGLE_APPLICATION_CREDENTIALS"].Value
	if !mountedFromSecret(pod, gac, "spark-logs-credentials", "gcs.json") {
		t.Errorf("GOOGLE_APPLICATION_CREDENTIALS=%q is not gcs.json of Secret spark-logs-credentials mounted read-only", gac)
	}

	// Stack sampling: hostPID and CAP_SYS_PTRACE, and the agent's own args.
	ds := only[*appsv1.DaemonSet](t, r)
	agent := ds.Spec.Template.Spec
	ac := agent.Containers[0]
	if !agent.HostPID {
		t.Error("stack sampling without hostPID cannot signal the executors' JVMs")
	}
	if caps := ac.SecurityContext.Capabilities; !slices.Equal(caps.Add, []corev1.Capability{"SYS_PTRACE"}) || !slices.Contains(caps.Drop, "ALL") {
		t.Errorf("node agent capabilities %+v: want all dropped but SYS_PTRACE", caps)
	}
	for _, a := range []string{"--collector.process", "--collector.stacks", "--profiling.enabled", "--energy.tdp-watts=205",
		"--process.interval=10s", "--web.config.file=/etc/sparkglance/web/web-config.yml"} {
		if !slices.Contains(ac.Args, a) {
			t.Errorf("node agent args %v lack %s", ac.Args, a)
		}
	}
	if ac.Resources.Limits.Cpu().String() != "500m" {
		t.Errorf("node agent CPU limit %s while sampling stacks, want nodeAgent.stacks.resources' 500m", ac.Resources.Limits.Cpu())
	}

	// The web configuration: a Secret with the values' config, mounted in
	// both; basic auth covers every path, so probes only open the port; the
	// monitors scrape over HTTPS with credentials.
	secret := only[*corev1.Secret](t, r)
	var webConfig map[string]any
	if err := yaml.UnmarshalStrict([]byte(secret.StringData["web-config.yml"]), &webConfig); err != nil {
		t.Fatal(err)
	}
	if _, ok := webConfig["basic_auth_users"]; !ok || webConfig["tls_server_config"] == nil {
		t.Errorf("web config Secret holds %v, want the values' tls_server_config and basic_auth_users", webConfig)
	}
	for _, p := range []corev1.PodSpec{pod, agent} {
		c := p.Containers[0]
		if !mountedFromSecret(p, "/etc/sparkglance/web/web-config.yml", secret.Name, "") {
			t.Errorf("container %s does not mount Secret %s at /etc/sparkglance/web", c.Name, secret.Name)
		}
		if c.ReadinessProbe == nil || c.ReadinessProbe.TCPSocket == nil || c.ReadinessProbe.HTTPGet != nil {
			t.Errorf("container %s readiness probe %+v: want a TCP check behind basic auth", c.Name, c.ReadinessProbe)
		}
	}
	sm := only[*monitoringv1.ServiceMonitor](t, r)
	pm := only[*monitoringv1.PodMonitor](t, r)
	// The two monitors' endpoint types differ; their scrape settings are
	// compared as JSON.
	for _, ep := range []any{sm.Spec.Endpoints[0], pm.Spec.PodMetricsEndpoints[0]} {
		var got struct {
			Scheme    string `json:"scheme"`
			BasicAuth struct {
				Username struct{ Name string } `json:"username"`
			} `json:"basicAuth"`
			TLSConfig struct {
				InsecureSkipVerify bool `json:"insecureSkipVerify"`
			} `json:"tlsConfig"`
		}
		if err := json.Unmarshal(mustJSON(t, ep), &got); err != nil {
			t.Fatal(err)
		}
		if strings.ToLower(got.Scheme) != "https" || got.BasicAuth.Username.Name != "sparkglance-scrape" || !got.TLSConfig.InsecureSkipVerify {
			t.Errorf("monitor endpoint %s: want https with the values' basic auth and TLS config", mustJSON(t, ep))
		}
	}
	for _, obj := range []struct {
		name   string
		labels map[string]string
	}{{"ServiceMonitor", sm.Labels}, {"PodMonitor", pm.Labels}, {"PrometheusRule", only[*monitoringv1.PrometheusRule](t, r).Labels}} {
		if obj.labels["release"] != "kube-prometheus-stack" || obj.labels["team"] != "data-platform" {
			t.Errorf("%s labels %v lack the values' release and commonLabels", obj.name, obj.labels)
		}
	}
	for _, cm := range all[*corev1.ConfigMap](r) {
		if cm.Namespace != "grafana" {
			t.Errorf("dashboard ConfigMap %s in namespace %q, want dashboards.namespace grafana", cm.Name, cm.Namespace)
		}
	}
	if n := len(pod.Volumes); n != 2 {
		t.Errorf("%d volumes with an object store: want only the Google credentials and the web config", n)
	}
	for _, p := range podSpecs(r) {
		if len(p.ImagePullSecrets) != 1 || p.ImagePullSecrets[0].Name != "registry" || p.NodeSelector == nil {
			t.Errorf("pod spec lacks the values' imagePullSecrets or nodeSelector: %+v %v", p.ImagePullSecrets, p.NodeSelector)
		}
	}
	checkPortsAndSelectors(t, r, 18090)
	checkRulesAndDashboards(t, r)
	sameSecurity(t, "StatefulSet", pod, one[*appsv1.StatefulSet](t, "kubernetes/overlays/sharded/statefulset.yaml").Spec.Template.Spec)
}

// mountedFromSecret tells whether file lies under a read-only mount of
// Secret secret in p's first container (with key as the file's name when
// key is set).
func mountedFromSecret(p corev1.PodSpec, file, secret, key string) bool {
	volumes := map[string]corev1.Volume{}
	for _, v := range p.Volumes {
		volumes[v.Name] = v
	}
	for _, m := range p.Containers[0].VolumeMounts {
		v := volumes[m.Name]
		if !m.ReadOnly || v.Secret == nil || v.Secret.SecretName != secret || path.Dir(file) != m.MountPath {
			continue
		}
		if key == "" || path.Base(file) == key {
			return true
		}
	}
	return false
}

// The other event-log sources, the Spark targets of an unsharded exporter,
// another port and an existing web-config Secret with TLS only.
func TestHelmValueVariants(t *testing.T) {
	t.Run("hostPath and Spark targets", func(t *testing.T) {
		r := render(t, chartValues(t, nil, `
port: 9999
eventlog:
  source: {type: hostPath, hostPath: {path: /data/spark-events, type: DirectoryOrCreate}, mountPath: /logs}
  spark:
    targets: [{targets: ["http://history:18080"], labels: {kind: history}}]
    urls: ["http://driver:4040"]
`), true)
		dep := only[*appsv1.Deployment](t, r)
		pod := dep.Spec.Template.Spec
		for _, a := range []string{"--eventlog.dir=/logs", "--collector.spark", "--spark.targets-file=/etc/sparkglance/targets/targets.json", "--spark.url=http://driver:4040"} {
			if !slices.Contains(pod.Containers[0].Args, a) {
				t.Errorf("args %v lack %s", pod.Containers[0].Args, a)
			}
		}
		if v := pod.Volumes[0]; v.HostPath == nil || v.HostPath.Path != "/data/spark-events" || *v.HostPath.Type != corev1.HostPathDirectoryOrCreate {
			t.Errorf("event-log volume %+v: want hostPath /data/spark-events", v)
		}
		if m := pod.Containers[0].VolumeMounts[0]; m.MountPath != "/logs" || !m.ReadOnly {
			t.Errorf("event-log mount %+v: want /logs read-only", m)
		}
		var targets *corev1.ConfigMap
		for _, cm := range all[*corev1.ConfigMap](r) {
			if _, ok := cm.Data["targets.json"]; ok {
				targets = cm
			}
		}
		if targets == nil {
			t.Fatal("no Spark targets ConfigMap")
		}
		var groups []struct {
			Targets []string          `json:"targets"`
			Labels  map[string]string `json:"labels"`
		}
		if err := json.Unmarshal([]byte(targets.Data["targets.json"]), &groups); err != nil || len(groups) != 1 ||
			!slices.Equal(groups[0].Targets, []string{"http://history:18080"}) || groups[0].Labels["kind"] != "history" {
			t.Errorf("targets.json %q (%v): want the values' file_sd group", targets.Data["targets.json"], err)
		}
		checkPortsAndSelectors(t, r, 9999)
	})
	t.Run("CSI volume, existing TLS web config", func(t *testing.T) {
		r := render(t, chartValues(t, nil, `
eventlog:
  source: {type: volume, volume: {csi: {driver: s3.csi.aws.com, readOnly: true, volumeAttributes: {bucketName: logs}}}}
webConfig: {enabled: true, existingSecret: my-web-config, tls: true}
`), true)
		pod := only[*appsv1.Deployment](t, r).Spec.Template.Spec
		if v := pod.Volumes[0]; v.CSI == nil || v.CSI.Driver != "s3.csi.aws.com" {
			t.Errorf("event-log volume %+v: want the values' CSI volume", v)
		}
		if n := len(all[*corev1.Secret](r)); n != 0 {
			t.Errorf("%d Secrets made beside the existing web config Secret", n)
		}
		for _, p := range podSpecs(r) {
			c := p.Containers[0]
			if !mountedFromSecret(p, "/etc/sparkglance/web/web-config.yml", "my-web-config", "") {
				t.Errorf("%s does not mount Secret my-web-config", c.Name)
			}
			if h := c.ReadinessProbe.HTTPGet; h == nil || h.Scheme != corev1.URISchemeHTTPS || h.Path != "/-/ready" {
				t.Errorf("%s readiness probe %+v: want HTTPS /-/ready", c.Name, c.ReadinessProbe)
			}
		}
		if ep := only[*monitoringv1.ServiceMonitor](t, r).Spec.Endpoints[0]; ep.Scheme == nil || strings.ToLower(ep.Scheme.String()) != "https" || ep.BasicAuth != nil {
			t.Errorf("ServiceMonitor endpoint %+v: want https without basic auth", ep)
		}
	})
	t.Run("components off", func(t *testing.T) {
		r := render(t, chartValues(t, nil, "eventlog: {enabled: false}\nnodeAgent: {enabled: false}\ndashboards: {enabled: false}\nserviceAccount: {create: false}"), true)
		if got := kinds(r); !slices.Equal(got, []string{"v1.PrometheusRule"}) {
			t.Errorf("everything off renders %v, want only the PrometheusRule", got)
		}
	})
}

// Values that cannot work fail the render with a message naming the
// value: values.schema.json refuses wrong types, unknown names and values
// out of range; the templates check what the schema cannot, and, for
// `helm --skip-schema-validation`, what it can.
func TestHelmBadValues(t *testing.T) {
	for _, c := range []struct{ values, schema, template string }{
		{"eventlog: {shards: 0}", "at '/eventlog/shards': minimum", "eventlog.shards is 0"},
		{"eventlog: {source: {type: nfs}}", "at '/eventlog/source/type': value must be one of", `eventlog.source.type "nfs"`},
		{"eventlog: {shard: 3}", "additional properties 'shard' not allowed", ""},
		{"port: http", "at '/port': got string, want integer", ""},
		{"eventlog: {source: {type: objectStore}}", "", "eventlog.source.objectStore.url is empty"},
		{"eventlog: {source: {type: volume}}", "", "eventlog.source.volume is empty"},
		{"webConfig: {enabled: true}", "", "webConfig.existingSecret or webConfig.config"},
		{"webConfig: {enabled: true, config: {tls_server_config: {cert_file: c, key_file: k}}}\nnodeAgent: {stacks: {enabled: true, profiling: true}}", "",
			"nodeAgent.stacks.profiling serves the JVM profiles API, which needs a webConfig.config that authenticates"},
		{"eventlog: {source: {type: objectStore, objectStore: {url: s3a://b/p, credentials: {envKeys: [AWS_REGION]}}}}", "", "no secretName"},
	} {
		vals := chartValues(t, nil, c.values)
		_, err := renderChart(t, vals, false, true)
		want := c.schema
		if want == "" {
			want = c.template
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("values %s: error %v, want one saying %q", c.values, err, want)
		}
		if c.template == "" {
			continue
		}
		if _, err := renderChart(t, vals, false, false); err == nil || !strings.Contains(err.Error(), c.template) {
			t.Errorf("values %s without the schema: error %v, want one saying %q", c.values, err, c.template)
		}
	}
}

// The chart's copies of the dashboards and the rule file are what `make
// docs` writes, and the chart holds no other dashboard.
func TestHelmChartCopiesAreUpToDate(t *testing.T) {
	files, err := deploy.HelmChartFiles(alerts.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): run `make docs`", name, err)
		}
	}
	for _, dir := range []string{"dashboards", "rules"} {
		entries, err := os.ReadDir(filepath.Join(chartDir, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if _, ok := files[path.Join(chartDir, dir, e.Name())]; !ok {
				t.Errorf("%s/%s/%s is not generated: remove it", chartDir, dir, e.Name())
			}
		}
	}
}

// README.md's table has a row for every value of values.yaml (or for a
// map holding it, such as resources), and for nothing else.
func TestHelmReadmeListsEveryValue(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok := strings.Cut(rest, "` |"); ok {
				rows[name] = true
			}
		}
	}
	documented := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if rows[prefix] {
			documented[prefix] = true
			return
		}
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			t.Errorf("value %s is not in README.md's table", prefix)
			return
		}
		for k, sub := range m {
			name := k
			if prefix != "" {
				name = prefix + "." + k
			}
			walk(name, sub)
		}
	}
	walk("", chartValues(t, []string{filepath.Join(chartDir, "values.yaml")}, ""))
	for row := range rows {
		if !documented[row] && strings.Contains(row, ".") {
			t.Errorf("README.md documents %s, which values.yaml does not have", row)
		}
	}
}

// With the longest full name every object name stays a valid DNS label
// (63), a StatefulSet's leaves room for its pods' controller-revision-hash
// label (52), and no two objects of a kind share a name.
func TestHelmLongNames(t *testing.T) {
	long := strings.Repeat("n", 63)
	r := render(t, chartValues(t, []string{allValuesFile}, "fullnameOverride: "+long), true)
	seen := map[string]bool{}
	for _, o := range r.objs {
		var meta struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := json.Unmarshal(mustJSON(t, o), &meta); err != nil {
			t.Fatal(err)
		}
		name, kind := meta.Metadata.Name, fmt.Sprintf("%T", o)
		limit := 63
		if _, ok := o.(*appsv1.StatefulSet); ok {
			limit = 52
		}
		if len(name) > limit || strings.HasSuffix(name, "-") {
			t.Errorf("%s %s: %d characters, at most %d", kind, name, len(name), limit)
		}
		if seen[kind+"/"+name] {
			t.Errorf("two objects %s %s", kind, name)
		}
		seen[kind+"/"+name] = true
	}
}
