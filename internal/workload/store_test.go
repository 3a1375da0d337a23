package workload_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
)

// A Summary cannot hold an analysis: no type of package analysis (or any
// other package's) is reachable from its fields, and the summary of a
// report shares none of the report's memory.
func TestSummaryHoldsNoAnalysis(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if pkg := ty.PkgPath(); pkg != "" && !strings.HasSuffix(pkg, "/internal/workload") {
			t.Errorf("%s is a %s: a summary must hold its own data only", path, ty)
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path+"[]", ty.Elem())
		case reflect.Map:
			walk(path+"[key]", ty.Key())
			walk(path+"[]", ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				walk(path+"."+f.Name, f.Type)
			}
		case reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			t.Errorf("%s is a %s: it could hold anything", path, ty)
		}
	}
	walk("Summary", reflect.TypeFor[workload.Summary]())

	runs, err := simulate.WorkloadRuns(4, workloadtest.SeriesStart)
	if err != nil {
		t.Fatal(err)
	}
	rep := workloadtest.Analyze(t, runs[0].Config)
	s := workload.Summarize(&rep)
	before := s.Properties[simulate.WorkloadSlowProperty]
	rep.Properties[simulate.WorkloadSlowProperty] = "changed in the analysis"
	rep.Stages[0].Name = "changed in the analysis"
	if s.Properties[simulate.WorkloadSlowProperty] != before || s.Stages[0].Name == "changed in the analysis" {
		t.Error("the summary shares the analysis's properties or stages")
	}
}

// The history serve keeps catching up on 10,500 runs of 500 workloads (and
// one workload too many) holds a bounded number of summaries: MaxRuns per
// workload, the details of the newest BaselineRuns+2 only, the rest of the
// runs dropped (by count, not by measuring memory).
func TestHistoryKeepsBoundedSummaries(t *testing.T) {
	const workloads, perWorkload, maxRuns, baselineRuns = 500, 21, 12, 7
	h := workload.NewHistory(workload.HistoryOptions{MaxWorkloads: workloads, MaxRuns: maxRuns, Options: workload.Options{BaselineRuns: baselineRuns}})
	for i := range (workloads + 1) * perWorkload {
		w, n := i%(workloads+1), i/(workloads+1)
		s := run(fmt.Sprintf("job %03d", w), n, 600, 0.8, 1e9)
		s.AppID = fmt.Sprintf("app-%03d-%04d", w, n)
		s.Stages = []workload.StageSummary{{Key: "join", Name: "join", WallMs: 1000}}
		h.Add(s)
	}
	keys := h.Workloads()
	if len(keys) != workloads {
		t.Fatalf("%d workloads kept, want %d", len(keys), workloads)
	}
	if got := h.Dropped(); got != perWorkload {
		t.Errorf("%d runs dropped, want the %d of the workload beyond the limit", got, perWorkload)
	}
	runs, detailed := 0, 0
	for _, k := range keys {
		rs := h.Runs(k)
		runs += len(rs)
		for i, r := range rs {
			if r.Detailed() {
				detailed++
			}
			if want := i >= maxRuns-(baselineRuns+2); r.Detailed() != want {
				t.Errorf("%s run %d: detailed %v, want %v", k, i, r.Detailed(), want)
			}
		}
		if last := rs[len(rs)-1].AppID; !strings.HasSuffix(last, fmt.Sprintf("-%04d", perWorkload-1)) {
			t.Errorf("%s: newest run kept is %s", k, last)
		}
	}
	if runs != workloads*maxRuns || detailed != workloads*(baselineRuns+2) {
		t.Errorf("%d summaries kept (%d with details), want %d (%d)", runs, detailed, workloads*maxRuns, workloads*(baselineRuns+2))
	}
}

// What changed between two runs names a secret property, its value
// redacted as Spark redacts it: never the secret.
func TestPropertyDiffRedactsSecrets(t *testing.T) {
	runs, err := simulate.WorkloadRuns(5, workloadtest.SeriesStart) // runs 0 and 1 steady
	if err != nil {
		t.Fatal(err)
	}
	runs[0].Properties["spark.redis.password"] = "hunter1"
	runs[1].Properties["spark.redis.password"] = "hunter2"
	runs[1].Properties["spark.hadoop.fs.s3a.secret.key"] = "hunter3"
	a, b := workloadtest.Analyze(t, runs[0].Config), workloadtest.Analyze(t, runs[1].Config)
	sa, sb := workload.Summarize(&a), workload.Summarize(&b)
	c := workload.Compare(&sa, &sb)
	want := []workload.PropertyChange{{Name: "spark.hadoop.fs.s3a.secret.key", New: "*********(redacted)", Added: true}}
	if !slices.Equal(c.Properties, want) {
		t.Errorf("property changes %+v, want %+v (the password's change is invisible once redacted)", c.Properties, want)
	}
	b2, _ := json.Marshal(c)
	if strings.Contains(string(b2), "hunter") {
		t.Errorf("a secret in the comparison: %s", b2)
	}
}
