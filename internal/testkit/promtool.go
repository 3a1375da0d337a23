package testkit

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// PromtoolCheckMetrics runs `promtool check metrics` of Debian's
// Prometheus 2 and of Prometheus 3 on an exposition and fails the test on
// any remark: the linter prints nothing for a clean one. A missing promtool
// is left out (fails the test under CI=true); with neither the test skips.
func PromtoolCheckMetrics(t testing.TB, exposition string) {
	t.Helper()
	for _, p := range availablePrometheuses(t) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, p.Promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(exposition)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || out.Len() > 0 {
			t.Errorf("promtool %s check metrics: %v\n%s", p.Name, err, out.String())
		}
		cancel()
	}
}
