package analysis

import (
	"context"
	"testing"
)

// BenchmarkWhatIf1MTasks measures the what-if alone: the replay of the
// generated 1M-task application (200 stages × 5000 tasks, 50 executors ×
// 8 cores) at every executor count it predicts, its graph rebuilt each
// time as after new events.
func BenchmarkWhatIf1MTasks(b *testing.B) {
	a := New(DefaultConfig())
	generateApp(200, 5000, 50, 8, a.Add)
	r := a.Report()
	for b.Loop() {
		a.deep.cache = wiCache{}
		w := a.whatIf(context.Background(), &r)
		b.ReportMetric(float64(len(w.Predictions)), "predictions")
	}
}
