package jsonout

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
)

// The documents the writer judges on several goroutines are, byte for
// byte, those of judging each run on its own, in memory, against the runs
// of its workload that started before it (workload.Evaluate): with several
// workloads interleaved, the inputs out of start order, equal start times,
// unfinished runs and runs alone in their workload, whatever the number of
// workers, however small the cache of details, and whether the workers or
// the writer read the documents back.
func TestJudgedDocumentsMatchEvaluate(t *testing.T) {
	docs := judgingDocs(t)
	o := workload.Options{BaselineRuns: 4}
	want := evaluatedArray(t, docs, o)
	for _, tc := range []struct {
		workers, limit int // limit 0: the writer's own
		bigDoc         int64
	}{
		{1, 0, bigSpooledDoc}, {2, 0, bigSpooledDoc}, {3, 0, bigSpooledDoc}, {8, 0, bigSpooledDoc},
		{1, 1, bigSpooledDoc}, {3, 1, bigSpooledDoc}, {8, 1000, bigSpooledDoc},
		{2, 0, 0}, {3, 1, 114_000}, // every document, half of them, read back by the writer
	} {
		t.Run(fmt.Sprintf("workers%d-limit%d-bigDoc%d", tc.workers, tc.limit, tc.bigDoc), func(t *testing.T) {
			var out bytes.Buffer
			w := New(&out, o)
			sink := w.Sink(context.Background())
			if err := sink.Start(len(docs)); err != nil {
				t.Fatal(err)
			}
			w.spool.workers, w.spool.detailsLimit, w.spool.bigDoc = tc.workers, tc.limit, tc.bigDoc
			for _, d := range docs {
				elem, err := sink.Prepare(d)
				if err != nil {
					t.Fatal(err)
				}
				if err := sink.Emit(elem); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := out.Bytes(); !bytes.Equal(got, want) {
				t.Errorf("the judged documents differ from the runs evaluated one by one, first at byte %d:\n%s\nwant\n%s",
					firstDiff(got, want), around(got, firstDiff(got, want)), around(want, firstDiff(got, want)))
			}
		})
	}
}

// judgingDocs are the documents of three workloads of 12 runs each
// (copies of the generator's series, whose 10th run regresses, with their
// own ids, start times and a property that changes), some unfinished and
// some starting at once, plus two runs alone in their workload, in an order
// that is not their start order.
func judgingDocs(t *testing.T) []appdoc.Doc {
	reports := workloadtest.Reports(t, 12)
	var docs []appdoc.Doc
	for w := range 3 {
		for k, r := range reports[:12] {
			r.Workload = fmt.Sprintf("job %d", w)
			r.AppID = fmt.Sprintf("app-2026110%d-%04d", w, k)
			shift := int64(w) * 3_600_000
			if k == 5 || w == 1 && k == 9 {
				shift = docs[len(docs)-1].Start - r.Start // starts with the run before it
			}
			r.Start += shift
			r.End += shift
			r.Live = (k+w)%5 == 3
			r.Properties = maps.Clone(r.Properties)
			r.Properties["spark.sql.shuffle.partitions"] = fmt.Sprint(200 * (1 + k/4))
			docs = append(docs, appdoc.Doc{Report: r, Log: "/logs/" + r.AppID, Lines: int64(k), Events: map[string]int64{"SparkListenerTaskEnd": 7}, Problems: []sparklog.Problem{}})
		}
	}
	for i, r := range []string{"alone 1", "alone 2"} {
		rep := reports[12]
		rep.Workload, rep.AppID = r, fmt.Sprintf("app-alone-%d", i)
		docs = append(docs, appdoc.Doc{Report: rep, Log: "/logs/" + rep.AppID, Events: map[string]int64{}, Problems: []sparklog.Problem{}})
	}
	rng := rand.New(rand.NewPCG(27, 8))
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	// Of two runs that start at once, the one with the greater id comes
	// first: only the id orders them.
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			a, b := &docs[i].Report, &docs[j].Report
			if a.Workload == b.Workload && a.Start == b.Start && a.AppID < b.AppID {
				docs[i], docs[j] = docs[j], docs[i]
			}
		}
	}
	return docs
}

// evaluatedArray is the JSON array of docs with each run evaluated on its
// own against the runs of its workload that started before it.
func evaluatedArray(t *testing.T, docs []appdoc.Doc, o workload.Options) []byte {
	t.Helper()
	sums := make([]workload.Summary, len(docs))
	byKey := map[string][]workload.Summary{}
	for i := range docs {
		sums[i] = workload.Summarize(&docs[i].Report)
		byKey[sums[i].Workload] = append(byKey[sums[i].Workload], sums[i])
	}
	elems := make([]string, len(docs))
	judged := 0
	for i, doc := range docs {
		runs := byKey[sums[i].Workload]
		if len(runs) < 2 {
			elem, err := encodeElement(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			elems[i] = string(elem)
			continue
		}
		var previous []workload.Summary
		for _, r := range runs {
			if r.Start < sums[i].Start || r.Start == sums[i].Start && r.ID() < sums[i].ID() {
				previous = append(previous, r)
			}
		}
		slices.SortStableFunc(previous, func(a, b workload.Summary) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.ID(), b.ID()))
		})
		res := workload.Evaluate(&sums[i], previous, o)
		if _, ok := res.Finding(); ok {
			judged++
		}
		doc.Findings = slices.Clone(doc.Findings)
		if f, ok := res.Finding(); ok {
			doc.Findings = append(doc.Findings, f)
		}
		elem, err := encodeAsElement(struct {
			appdoc.Doc
			WorkloadComparison workloadComparison `json:"workloadComparison"`
		}{doc, newWorkloadComparison(&res)})
		if err != nil {
			t.Fatal(err)
		}
		elems[i] = string(elem)
	}
	if judged == 0 {
		t.Fatal("no run regressed or grew: the documents test too little")
	}
	return []byte("[\n  " + strings.Join(elems, ",\n  ") + "\n]\n")
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(b []byte, i int) []byte { return b[max(0, i-300):min(len(b), i+300)] }
