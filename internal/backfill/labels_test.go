package backfill_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/backfill"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

var (
	sampleLine = regexp.MustCompile(`^([a-z_]+)\{(.*)\} \S+ \S+$`)
	labelPair  = regexp.MustCompile(`([a-z_]+)="((?:[^"\\]|\\.)*)"`)
)

// Every sample the backfill writes of the real logs is of a family of the
// schema and carries only the labels it declares, closed ones with their
// declared values.
func TestBackfillWritesOnlyDeclaredLabels(t *testing.T) {
	var out bytes.Buffer
	opt := options()
	opt.IncludeUnfinished = true
	if _, err := backfill.Write(&out, []string{testkit.Events(t)}, opt); err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	for line := range strings.Lines(out.String()) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			t.Fatalf("sample line %q", line)
		}
		def, ok := sm.Lookup(m[1])
		if !ok {
			t.Errorf("%s is written but not in the schema", m[1])
			continue
		}
		labels := map[string]string{}
		for _, kv := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[kv[1]] = kv[2]
		}
		if err := def.CheckLabels(labels); err != nil {
			t.Error(err)
		}
		families[m[1]]++
	}
	if len(families) != 7 {
		t.Errorf("samples of %d families written, want 7: %v", len(families), families)
	}
}
