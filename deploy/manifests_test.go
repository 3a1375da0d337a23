package deploy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/dashboards"
	"github.com/sparkglance/sparkglance/deploy"
)

// kustomization is the part of kustomize's file these manifests use;
// decoding strictly catches a misspelt field.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels,omitempty"`
	Resources []string `json:"resources"`
	Patches   []struct {
		Path   string `json:"path"`
		Target struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"target"`
	} `json:"patches,omitempty"`
}

// objects decodes every document of a manifest strictly into its official
// API type, by kind.
func objects(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeObjects(t, path, b)
}

// decodeObjects decodes every document of the manifest at path strictly
// into its official API type, by kind; documents without a kind (empty or
// only comments, as a template renders when it is switched off) are left
// out.
func decodeObjects(t *testing.T, path string, b []byte) []any {
	t.Helper()
	var out []any
	for i, doc := range bytes.Split(b, []byte("\n---\n")) {
		var head struct{ Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatalf("%s document %d: %v", path, i, err)
		}
		var obj any
		switch {
		case head.Kind == "" && !bytes.Contains(doc, []byte("$patch")):
			continue
		case head.Kind == "Secret":
			obj = &corev1.Secret{}
		case bytes.Contains(doc, []byte("$patch: delete")):
			obj = &deletePatch{}
		case head.Kind == "StatefulSet":
			obj = &appsv1.StatefulSet{}
		case head.Kind == "Deployment":
			obj = &appsv1.Deployment{}
		case head.Kind == "DaemonSet":
			obj = &appsv1.DaemonSet{}
		case head.Kind == "Service":
			obj = &corev1.Service{}
		case head.Kind == "ServiceAccount":
			obj = &corev1.ServiceAccount{}
		case head.Kind == "ConfigMap":
			obj = &corev1.ConfigMap{}
		case head.Kind == "ServiceMonitor":
			obj = &monitoringv1.ServiceMonitor{}
		case head.Kind == "PodMonitor":
			obj = &monitoringv1.PodMonitor{}
		case head.Kind == "PrometheusRule":
			obj = &monitoringv1.PrometheusRule{}
		case head.Kind == "Kustomization":
			obj = &kustomization{}
		default:
			t.Fatalf("%s document %d: unexpected kind %q", path, i, head.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatalf("%s document %d (%s): %v", path, i, head.Kind, err)
		}
		out = append(out, obj)
	}
	return out
}

// deletePatch is a strategic-merge patch that deletes an object.
type deletePatch struct {
	Patch      string `json:"$patch"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func one[T any](t *testing.T, path string) T {
	t.Helper()
	objs := objects(t, path)
	if len(objs) != 1 {
		t.Fatalf("%s: %d objects, want 1", path, len(objs))
	}
	v, ok := objs[0].(T)
	if !ok {
		t.Fatalf("%s holds %T", path, objs[0])
	}
	return v
}

// Every resource of the base and every patch of the overlay decodes
// strictly; every file in the directories is listed.
func TestKubernetesManifestsDecodeStrictly(t *testing.T) {
	for _, dir := range []string{"kubernetes/base", "kubernetes/overlays/stacks", "kubernetes/overlays/sharded"} {
		k := one[*kustomization](t, filepath.Join(dir, "kustomization.yaml"))
		listed := []string{"kustomization.yaml"}
		for _, r := range k.Resources {
			if strings.HasPrefix(r, "../") {
				continue
			}
			objects(t, filepath.Join(dir, r))
			listed = append(listed, r)
		}
		for _, p := range k.Patches {
			objects(t, filepath.Join(dir, p.Path))
			listed = append(listed, p.Path)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, f := range files {
			if !slices.Contains(listed, filepath.Base(f)) {
				t.Errorf("%s is not referenced by %s/kustomization.yaml", f, dir)
			}
		}
	}
}

func TestNodeAgentPrivileges(t *testing.T) {
	ds := one[*appsv1.DaemonSet](t, "kubernetes/base/daemonset.yaml")
	spec := ds.Spec.Template.Spec
	if !spec.HostPID {
		t.Error("node agent without hostPID cannot see the executors")
	}
	mounts := map[string]corev1.VolumeMount{}
	c := spec.Containers[0]
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	for _, p := range []string{"/host/proc", "/host/sys"} {
		if m, ok := mounts[p]; !ok || !m.ReadOnly {
			t.Errorf("%s: mounted %v read-only %v, want read-only", p, ok, m.ReadOnly)
		}
	}
	if sc := c.SecurityContext; sc == nil || sc.Capabilities == nil || len(sc.Capabilities.Add) != 0 ||
		!slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("base node agent capabilities %+v, want all dropped and none added", sc)
	}
	if slices.Contains(c.Args, "--collector.stacks") {
		t.Error("stack sampling is on in the base; it belongs in overlays/stacks")
	}
	patch := one[*appsv1.DaemonSet](t, "kubernetes/overlays/stacks/daemonset-stacks.yaml")
	pc := patch.Spec.Template.Spec.Containers[0]
	if pc.Name != c.Name || !slices.Contains(pc.Args, "--collector.stacks") ||
		pc.SecurityContext == nil || !slices.Equal(pc.SecurityContext.Capabilities.Add, []corev1.Capability{"SYS_PTRACE"}) {
		t.Errorf("stacks overlay container %q args %v security %+v, want --collector.stacks with SYS_PTRACE", pc.Name, pc.Args, pc.SecurityContext)
	}

	dep := one[*appsv1.Deployment](t, "kubernetes/base/deployment.yaml")
	if psc := dep.Spec.Template.Spec.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("the event-log Deployment must run as non-root")
	}
	for _, podSpec := range []corev1.PodSpec{spec, dep.Spec.Template.Spec} {
		for _, c := range podSpec.Containers {
			if c.Resources.Limits.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("container %s has no CPU/memory limits", c.Name)
			}
		}
	}
}

// The PrometheusRule and dashboards ConfigMap are generated from alerts/
// and dashboards/ and must be in sync with them.
func TestGeneratedManifestsAreUpToDate(t *testing.T) {
	th := alerts.DefaultThresholds()
	for _, g := range []struct {
		path   string
		render func() ([]byte, error)
	}{
		{deploy.PrometheusRuleFile, func() ([]byte, error) { return deploy.PrometheusRule(th) }},
		{deploy.DashboardsFile, deploy.DashboardsConfigMap},
	} {
		want, err := g.render()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(g.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make dashboards`", g.path)
		}
	}

	// Rule by rule, the PrometheusRule says what alerts/sparkglance-rules.yml says.
	pr := one[*monitoringv1.PrometheusRule](t, deploy.PrometheusRuleFile)
	var file struct{ Groups []alerts.Group }
	b, err := os.ReadFile(filepath.Join("..", "alerts", alerts.RuleFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := yamlV2Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(pr.Spec.Groups) != len(file.Groups) {
		t.Fatalf("%d groups in the PrometheusRule, %d in the rule file", len(pr.Spec.Groups), len(file.Groups))
	}
	for i, g := range pr.Spec.Groups {
		fg := file.Groups[i]
		if g.Name != fg.Name || len(g.Rules) != len(fg.Rules) {
			t.Fatalf("group %d: %s/%d rules vs %s/%d", i, g.Name, len(g.Rules), fg.Name, len(fg.Rules))
		}
		for j, r := range g.Rules {
			fr := fg.Rules[j]
			forDur := ""
			if r.For != nil {
				forDur = string(*r.For)
			}
			if r.Alert != fr.Alert || r.Record != fr.Record || r.Expr.String() != fr.Expr || forDur != fr.For ||
				fmt.Sprint(r.Labels) != fmt.Sprint(fr.Labels) || fmt.Sprint(r.Annotations) != fmt.Sprint(fr.Annotations) {
				t.Errorf("rule %s%s differs between the PrometheusRule and the rule file", r.Alert, r.Record)
			}
		}
	}

	cm := one[*corev1.ConfigMap](t, deploy.DashboardsFile)
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("dashboards ConfigMap labels %v lack grafana_dashboard=1 (Grafana's sidecar)", cm.Labels)
	}
	files, err := dashboards.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if cm.Data[f.Name] != string(f.JSON) {
			t.Errorf("dashboards ConfigMap: %s differs from dashboards/%s", f.Name, f.Name)
		}
	}
}

// The manifests and the compose file run the image `make image` tags with
// the VERSION file's version, never a moving "latest".
func TestManifestsPinTheReleasedImage(t *testing.T) {
	version, err := deploy.ReadVersion("..")
	if err != nil {
		t.Fatal(err)
	}
	want := deploy.Image(version)
	for _, f := range deploy.ImageFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pinned, err := deploy.PinImage(b, version)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, pinned) {
			t.Errorf("%s names another tag than %s: run `make docs`", f, want)
		}
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s does not run %s", f, want)
		}
	}
	dep := one[*appsv1.Deployment](t, "kubernetes/base/deployment.yaml")
	ds := one[*appsv1.DaemonSet](t, "kubernetes/base/daemonset.yaml")
	for _, c := range append(dep.Spec.Template.Spec.Containers, ds.Spec.Template.Spec.Containers...) {
		if c.Image != want {
			t.Errorf("container %s runs %s, want %s", c.Name, c.Image, want)
		}
	}
	// No other deployment file names the image by a moving tag.
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(deploy.ImageRepository+":latest")) || bytes.Contains(b, []byte(deploy.ImageRepository+"\n")) {
			t.Errorf("%s names %s without a version tag", path, deploy.ImageRepository)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPinImage(t *testing.T) {
	in := "image: ghcr.io/sparkglance/sparkglance:latest\n  image: \"ghcr.io/sparkglance/sparkglance\"\nimage: quay.io/other/image:latest\n"
	got, err := deploy.PinImage([]byte(in), "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	want := "image: ghcr.io/sparkglance/sparkglance:1.2.3\n  image: \"ghcr.io/sparkglance/sparkglance:1.2.3\"\nimage: quay.io/other/image:latest\n"
	if string(got) != want {
		t.Errorf("PinImage:\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{"", "1.2.3 ", "-x", "a/b"} {
		if _, err := deploy.PinImage([]byte(in), bad); err == nil {
			t.Errorf("PinImage accepted tag %q", bad)
		}
	}
}
