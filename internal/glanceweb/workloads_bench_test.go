package glanceweb_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
)

// BenchmarkWorkloadsAt500 is /workloads and /api/v1/workloads over a
// history of 500 workloads of 20 runs each (10,000 summaries of real
// analyses of the generator's series, the history serve keeps after
// catching up on them): each request judges every run kept. page-kB is
// the response's size.
func BenchmarkWorkloadsAt500(b *testing.B) {
	const workloads, perWorkload = 500, 20
	base := workloadtest.Summaries(b, 10)
	h := workload.NewHistory(workload.HistoryOptions{})
	for s := range workloadtest.Fleet(base, workloads, perWorkload) {
		h.Add(s)
	}
	mux := http.NewServeMux()
	for _, r := range glanceweb.WorkloadRoutes(h, nil) {
		mux.Handle(r.Pattern, r.Handler)
	}
	for _, path := range []string{"/workloads", "/api/v1/workloads"} {
		b.Run(path, func(b *testing.B) {
			var size int
			for b.Loop() {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d", path, rec.Code)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size)/1e3, "page-kB")
		})
	}
}
