package testkit

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// PromtoolCheckMetrics runs `promtool check metrics` on an exposition and
// fails the test on any remark: the linter prints nothing for a clean one.
// promtool missing skips (fails under CI=true).
func PromtoolCheckMetrics(t testing.TB, exposition string) {
	t.Helper()
	promtool := RequireTool(t, "promtool")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(exposition)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}
