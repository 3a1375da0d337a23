package appwatch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/collectors/sparkapi"
)

// docs/metrics.md is what the metric table renders to.
func TestMetricsDocUpToDate(t *testing.T) {
	var want bytes.Buffer
	if err := WriteMetricsDoc(&want); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "metrics.md")
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s is stale or missing (%v): run go generate ./collectors/appwatch", path, err)
	}
	for _, m := range Metrics() {
		if !strings.Contains(string(got), "| `"+m.Name+"` |") {
			t.Errorf("%s not documented", m.Name)
		}
	}
}

// Each table entry's descriptor carries its name, help and labels, and the
// series shared with the spark collector use sparkapi's descriptors with
// the help text the documentation shows.
func TestMetricTableConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Metrics() {
		if seen[m.Name] {
			t.Errorf("%s declared twice", m.Name)
		}
		seen[m.Name] = true
		if m.Type == counter != strings.HasSuffix(m.Name, "_total") {
			t.Errorf("%s: counters and only counters end in _total", m.Name)
		}
		d := m.desc.String()
		if !strings.Contains(d, `"`+m.Name+`"`) || !strings.Contains(d, `help: "`+m.Help+`"`) {
			t.Errorf("%s: descriptor %s disagrees with the table", m.Name, d)
		}
		for _, l := range m.Labels {
			if !strings.Contains(d, l) {
				t.Errorf("%s: descriptor %s lacks label %s", m.Name, d, l)
			}
		}
	}
	for m, d := range map[*Metric]string{
		execCores: sparkapi.ExecutorCoresDesc.String(), execActiveTasks: sparkapi.ExecutorActiveTasksDesc.String(),
		stageActive: sparkapi.StageActiveDesc.String(),
	} {
		if m.desc.String() != d {
			t.Errorf("%s: %s differs from the spark collector's %s", m.Name, m.desc, d)
		}
	}
}
