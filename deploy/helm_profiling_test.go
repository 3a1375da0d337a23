package deploy_test

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"golang.org/x/crypto/bcrypt"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/collectors/stacks"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// startsAs builds the node agent's exporter from a container's arguments
// as `sparkglance serve` would (without binding), with the host's /proc
// and /sys for the chart's mounts and mounted files from files.
func startsAs(t *testing.T, args []string, files map[string]string) error {
	t.Helper()
	var out []string
	for _, a := range args[1:] { // args[0] is the command, serve
		a = strings.NewReplacer("=/host/proc", "=/proc", "=/host/sys", "=/sys").Replace(a)
		for mounted, local := range files {
			a = strings.ReplaceAll(a, "="+mounted, "="+local)
		}
		out = append(out, a)
	}
	d := discovery.NewService()
	cat := exporter.NewCatalog()
	process.Register(cat, d)
	stacks.Register(cat, d)
	cfg := exportertest.ParseConfig(t, cat, out...)
	_, err := exporter.New(*cfg, cat, slog.New(slog.DiscardHandler))
	return err
}

// The node agent with the profiles API and no webConfig gets a generated
// basic auth: a Secret with a random password and its bcrypt hash as a web
// config, mounted and passed as --web.config.file, which sparkglance takes
// as authenticating (it refuses the same arguments without it); the
// PodMonitor scrapes with the Secret's credentials, the probe only opens
// the port, and the event-log exporter is left without a web config.
func TestHelmNodeAgentProfilingAuthenticates(t *testing.T) {
	r := render(t, chartValues(t, nil, "nodeAgent: {stacks: {enabled: true, profiling: true}}"), true)
	const secretName = "sg-sparkglance-node-auth"
	var secret *corev1.Secret
	for _, s := range all[*corev1.Secret](r) {
		if s.Name == secretName {
			secret = s
		}
	}
	if secret == nil {
		t.Fatalf("no Secret %s among %v", secretName, kinds(r))
	}
	user, password := secret.StringData["username"], secret.StringData["password"]
	var webConfig struct {
		Users map[string]string `json:"basic_auth_users"`
	}
	if err := yaml.UnmarshalStrict([]byte(secret.StringData["web-config.yml"]), &webConfig); err != nil {
		t.Fatal(err)
	}
	if len(password) < 32 || bcrypt.CompareHashAndPassword([]byte(webConfig.Users[user]), []byte(password)) != nil {
		t.Errorf("Secret %s: user %q, password of %d characters, web config %q: want the password's bcrypt hash for the user",
			secretName, user, len(password), secret.StringData["web-config.yml"])
	}

	agent := only[*appsv1.DaemonSet](t, r).Spec.Template.Spec
	c := agent.Containers[0]
	const mounted = "/etc/sparkglance/node-auth/web-config.yml"
	if !slices.Contains(c.Args, "--profiling.enabled") || !slices.Contains(c.Args, "--web.config.file="+mounted) {
		t.Errorf("node agent args %v: want --profiling.enabled with --web.config.file=%s", c.Args, mounted)
	}
	if !mountedFromSecret(agent, mounted, secretName, "web-config.yml") {
		t.Errorf("%s is not mounted from Secret %s", mounted, secretName)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.TCPSocket == nil {
		t.Errorf("readiness probe %+v: want a TCP check behind basic auth", c.ReadinessProbe)
	}
	local := filepath.Join(t.TempDir(), "web-config.yml")
	if err := os.WriteFile(local, []byte(secret.StringData["web-config.yml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := startsAs(t, c.Args, map[string]string{mounted: local}); err != nil {
		t.Errorf("sparkglance refuses the chart's node agent: %v", err)
	}
	without := slices.DeleteFunc(slices.Clone(c.Args), func(a string) bool { return strings.HasPrefix(a, "--web.config.file=") })
	if err := startsAs(t, without, nil); err == nil || !strings.Contains(err.Error(), "--profiling.enabled") {
		t.Errorf("the same node agent without the generated web config: %v, want refused", err)
	}

	var ep struct {
		BasicAuth struct {
			Username, Password struct{ Name, Key string }
		} `json:"basicAuth"`
	}
	if err := json.Unmarshal(mustJSON(t, only[*monitoringv1.PodMonitor](t, r).Spec.PodMetricsEndpoints[0]), &ep); err != nil {
		t.Fatal(err)
	}
	if ep.BasicAuth.Username.Name != secretName || ep.BasicAuth.Username.Key != "username" ||
		ep.BasicAuth.Password.Name != secretName || ep.BasicAuth.Password.Key != "password" {
		t.Errorf("PodMonitor basicAuth %+v: want the username and password of Secret %s", ep.BasicAuth, secretName)
	}
	for _, a := range only[*appsv1.Deployment](t, r).Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--web.config.file") {
			t.Errorf("the event-log exporter got %s: the generated auth is the node agent's", a)
		}
	}
	if sm := only[*monitoringv1.ServiceMonitor](t, r); sm.Spec.Endpoints[0].BasicAuth != nil {
		t.Errorf("ServiceMonitor has basic auth %+v without a web config", sm.Spec.Endpoints[0].BasicAuth)
	}

	// Without the profiles API nothing is generated.
	if r := render(t, chartValues(t, nil, "nodeAgent: {stacks: {enabled: true}}"), true); len(all[*corev1.Secret](r)) != 0 {
		t.Errorf("a Secret rendered without the profiles API")
	}
}
