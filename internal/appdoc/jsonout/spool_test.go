package jsonout

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
)

// The document with its workload comparison is, byte for byte, what
// encoding the document with the finding added to its findings and the
// comparison as its last member gives.
func TestWorkloadComparisonSpliced(t *testing.T) {
	reports := workloadtest.Reports(t, 10)[:10]
	sums := make([]workload.Summary, len(reports))
	for i := range reports {
		sums[i] = workload.Summarize(&reports[i])
	}
	for _, i := range []int{1, 5, 7, 8} { // no baseline; ok; regressed; explained by input
		doc := appdoc.Doc{Report: reports[i], Log: "/logs/" + reports[i].AppID, Lines: 42, Events: map[string]int64{"SparkListenerTaskEnd": 7}, Problems: []sparklog.Problem{}}
		for _, empty := range []bool{false, true} {
			if empty {
				doc.Findings = nil
			}
			res := workload.Evaluate(&sums[i], sums[:i], workload.Options{})
			sp, err := spoolDoc(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			splice, err := newComparisonSplice(&res)
			if err != nil {
				t.Fatal(err)
			}
			got, err := withComparison(sp.elem, sp.findings, splice)
			if err != nil {
				t.Fatal(err)
			}
			want := doc
			want.Findings = slices.Clone(doc.Findings)
			if f, ok := res.Finding(); ok {
				want.Findings = append(want.Findings, f)
			}
			wantElem, err := encodeAsElement(struct {
				appdoc.Doc
				WorkloadComparison workloadComparison `json:"workloadComparison"`
			}{want, newWorkloadComparison(&res)})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wantElem) {
				t.Errorf("run %d (findings nil: %v): spliced document differs from the encoded one:\n%s\nwant\n%s", i, empty, got, wantElem)
			}
			if !json.Valid(got) {
				t.Errorf("run %d: not JSON", i)
			}
		}
	}
}

// encodeAsElement encodes v as encodeElement encodes a document.
func encodeAsElement(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("  ", "  ")
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// The spool keeps no run's details in memory: they come back from its file
// when a judgement needs them, equal to the summary's.
func TestSpoolKeepsRunsLight(t *testing.T) {
	reports := workloadtest.Reports(t, 4)
	s, err := newWorkloadSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for _, r := range reports {
		d, err := spoolDoc(context.Background(), appdoc.Doc{Report: r, Log: r.AppID, Events: map[string]int64{}, Problems: []sparklog.Problem{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.add(d); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range reports {
		if s.runs[i].summary.Detailed() {
			t.Errorf("run %d: details kept in memory", i)
		}
		got, err := s.load(i)
		if err != nil {
			t.Fatal(err)
		}
		want := workload.Summarize(&r)
		if !got.Detailed() || !maps.Equal(got.Properties, want.Properties) || !slices.Equal(got.Stages, want.Stages) || got.Values != want.Values {
			t.Errorf("run %d: loaded %+v, want %+v", i, got, want)
		}
	}
}
