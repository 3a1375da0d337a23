package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
)

// The index's "Cores (max)" is the analysis' maximum: a two-second
// one-core application in a 10 s interval (0.2 cores on average) has 1.
func TestIndexCoresAreTheMaximum(t *testing.T) {
	r := &analysis.Report{AppID: "app-1", Start: 0, End: 2000, MaxCores: 1,
		Intervals: []analysis.Interval{{Start: 0, End: 10_000, AvailableCoreSeconds: 2}}}
	s := Summarize(r)
	if s.MaxCores != 1 {
		t.Fatalf("Summarize: MaxCores %v, want 1", s.MaxCores)
	}
	var b bytes.Buffer
	if err := WriteIndex(&b, Index{Title: "t", Apps: []Summary{s}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<td data-value="1">1</td>`) || !strings.Contains(b.String(), "1 application attempt,") && !strings.Contains(b.String(), "1 application attempt.") {
		t.Errorf("index row does not show 1 core or says the count in the plural:\n%s", b.String())
	}
}
