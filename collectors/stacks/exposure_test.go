package stacks

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// The JVM profiles API attaches to the node's JVMs and pauses them: on a
// non-loopback address it is refused without a web config that
// authenticates (no file, an empty one, TLS alone), naming the web config
// and --profiling.allow-unauthenticated; with basic auth, on loopback or
// with that flag it starts.
func TestProfilesAPINeedsAuthenticationBeyondLoopback(t *testing.T) {
	dir := t.TempDir()
	empty, auth := filepath.Join(dir, "empty.yml"), filepath.Join(dir, "auth.yml")
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{empty: "", auth: "basic_auth_users:\n  profiler: " + string(hash) + "\n"} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args    []string
		refused bool
	}{
		{[]string{"--web.listen-address=0.0.0.0:18090"}, true},
		{[]string{}, true}, // the default :18090, every interface
		{[]string{"--web.listen-address=0.0.0.0:18090", "--web.config.file=" + empty}, true},
		{[]string{"--web.listen-address=0.0.0.0:18090", "--web.config.file=" + auth}, false},
		{[]string{"--web.listen-address=0.0.0.0:18090", "--profiling.allow-unauthenticated"}, false},
		{[]string{"--web.listen-address=127.0.0.1:18090"}, false},
	} {
		cat := exporter.NewCatalog()
		Register(cat, fixtureDiscovery())
		args := append([]string{"--collector.disable-defaults", "--collector.stacks", "--profiling.enabled"}, tc.args...)
		cfg := exportertest.ParseConfig(t, cat, args...)
		_, err := exporter.New(*cfg, cat, slog.New(slog.DiscardHandler))
		if tc.refused != (err != nil) {
			t.Errorf("%q: err %v, want refused=%v", args, err, tc.refused)
			continue
		}
		if err != nil {
			for _, want := range []string{"--profiling.enabled (/api/v1/profiles)", "--web.config.file", "--profiling.allow-unauthenticated"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q: %q does not say %q", args, err, want)
				}
			}
		}
	}
}
