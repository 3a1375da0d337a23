package jsonout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/inorder"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// analyze --json gives each run of a workload with several runs among its
// inputs its workload comparison, as the text output's workload tables and
// the report index do: the run judged against the runs of its workload that
// started before it. Those may be read after it (inputs are read in the
// order given and listed, not in start order), and the set of a workload's
// runs is only known once every input is read. So the documents wait, each
// encoded by the worker that read it, in a temporary file with each run's
// details (properties, stages); memory keeps one small summary per run.
// Once every input is read the judgements are planned from the summaries
// (each run against the runs of its workload that started before it), the
// runs judged on every core and the documents written in input order,
// each judged run's with its
// workload_regression finding (when there is one) added to its findings
// and a "workloadComparison" member added last: the bytes are those of
// encoding the document with both (TestAnalyzeJSONWorkloadComparison).

// workloadComparison is the "workloadComparison" member of a document.
type workloadComparison struct {
	*workload.Result
	// ChangedSincePrevious is what changed since the previous finished run
	// of the workload (nil for its first run).
	ChangedSincePrevious *workloadChanges `json:"changedSincePrevious,omitempty"`
	// Stages are the stages matched with the baseline's run closest to the
	// median, the biggest contributors to the wall-time difference first:
	// where the time went (at most maxComparisonStages).
	Stages []workload.StageDelta `json:"stages,omitempty"`
}

// workloadChanges is what changed between two runs.
type workloadChanges struct {
	Run             string                    `json:"run"` // the previous run
	Properties      []workload.PropertyChange `json:"properties"`
	SparkVersion    string                    `json:"sparkVersionChange,omitempty"`
	ExecutorChanges []string                  `json:"executorChanges"`
}

// maxComparisonStages bounds the stages a document's workload comparison
// lists: `sparkglance compare` lists them all.
const maxComparisonStages = 10

func newWorkloadComparison(r *workload.Result) workloadComparison {
	wc := workloadComparison{Result: r}
	if c := r.Changes; c != nil {
		wc.ChangedSincePrevious = &workloadChanges{Run: c.Base.ID(), Properties: c.Properties, SparkVersion: c.SparkVersion, ExecutorChanges: c.ExecutorChanges}
	}
	if w := r.Where; w != nil {
		wc.Stages = w.Stages[:min(len(w.Stages), maxComparisonStages)]
	}
	return wc
}

// spooledDoc is what the sink's Prepare makes of one document.
type spooledDoc struct {
	elem []byte // encodeElement's bytes
	// findings is where the document's "findings" array is in elem.
	findings section
	summary  workload.Summary
}

// section is a range of bytes.
type section struct{ off, n int64 }

func (s section) of(b []byte) []byte { return b[s.off : s.off+s.n] }

// findingsKey precedes the findings array in an element (a member of the
// document, indented by encodeElement; a string cannot hold a newline).
const findingsKey = "\n    \"findings\": "

// spoolDoc encodes doc as an element of the array and summarizes its run.
func spoolDoc(ctx context.Context, doc appdoc.Doc) (spooledDoc, error) {
	elem, err := encodeElement(ctx, doc)
	if err != nil {
		return spooledDoc{}, err
	}
	findings, err := json.MarshalIndent(doc.Findings, "    ", "  ")
	if err != nil {
		return spooledDoc{}, err
	}
	i := bytes.Index(elem, append([]byte(findingsKey), findings...))
	if i < 0 {
		return spooledDoc{}, fmt.Errorf("%s: the document's findings are not where they belong", doc.Log)
	}
	return spooledDoc{elem: elem, findings: section{int64(i + len(findingsKey)), int64(len(findings))}, summary: workload.Summarize(&doc.Report)}, nil
}

// bigSpooledDoc is the size of a spooled document that is read back by the
// writer alone, one at a time, rather than by the workers judging.
const bigSpooledDoc = 16 << 20

// workloadSpool keeps the documents until every input is read.
type workloadSpool struct {
	f       *os.File
	removed bool // the file is unlinked already
	size    int64
	runs    []spooledRun
	// workers judge the runs once every input is read.
	workers int
	// detailsLimit bounds the runs whose details are kept decoded at once
	// (0: a few more than a baseline's runs per worker).
	detailsLimit int
	// bigDoc is the size of a document the writer reads back itself.
	bigDoc int64
}

type spooledRun struct {
	summary  workload.Summary // without properties and stages
	elem     section          // in the file
	findings section          // in elem
	details  section          // in the file: runDetails
}

// runDetails are the parts of a summary the spool keeps in its file.
type runDetails struct {
	Properties map[string]string       `json:"properties"`
	Stages     []workload.StageSummary `json:"stages"`
}

func newWorkloadSpool() (*workloadSpool, error) {
	f, err := os.CreateTemp("", "sparkglance-analyze-*.json")
	if err != nil {
		return nil, fmt.Errorf("a temporary file to hold the documents until every input is read: %w", err)
	}
	// Unlinked at once where the system allows it (the file lives on
	// while open): nothing is left behind however the command ends.
	removed := os.Remove(f.Name()) == nil
	return &workloadSpool{f: f, removed: removed, workers: runtime.GOMAXPROCS(0), bigDoc: bigSpooledDoc}, nil
}

// add keeps one document.
func (s *workloadSpool) add(d spooledDoc) error {
	details, err := json.Marshal(runDetails{Properties: d.summary.Properties, Stages: d.summary.Stages})
	if err != nil {
		return err
	}
	run := spooledRun{summary: d.summary, findings: d.findings}
	run.summary.Properties, run.summary.Stages = nil, nil
	run.elem, err = s.write(d.elem)
	if err != nil {
		return err
	}
	if run.details, err = s.write(details); err != nil {
		return err
	}
	s.runs = append(s.runs, run)
	return nil
}

func (s *workloadSpool) write(b []byte) (section, error) {
	sec := section{s.size, int64(len(b))}
	n, err := s.f.Write(b)
	s.size += int64(n)
	if err != nil {
		return sec, fmt.Errorf("holding the documents until every input is read: %w", err)
	}
	return sec, nil
}

func (s *workloadSpool) read(sec section) ([]byte, error) {
	b := make([]byte, sec.n)
	if _, err := s.f.ReadAt(b, sec.off); err != nil {
		return nil, fmt.Errorf("reading back the documents held until every input was read: %w", err)
	}
	return b, nil
}

// load is the run of index i with its details.
func (s *workloadSpool) load(i int) (workload.Summary, error) {
	run := s.runs[i]
	b, err := s.read(run.details)
	if err != nil {
		return workload.Summary{}, err
	}
	var d runDetails
	if err := json.Unmarshal(b, &d); err != nil {
		return workload.Summary{}, err
	}
	sum := run.summary
	sum.Properties, sum.Stages = d.Properties, d.Stages
	if sum.Properties == nil {
		sum.Properties = map[string]string{}
	}
	if sum.Stages == nil {
		sum.Stages = []workload.StageSummary{}
	}
	return sum, nil
}

// writeTo judges the runs and writes the documents in the order they were
// added, then removes the file.
func (s *workloadSpool) writeTo(out *jsonArrayWriter, o workload.Options) error {
	err := s.writeJudged(out, o)
	return errors.Join(err, s.close())
}

// writeJudged judges the runs on s.workers goroutines, each judging a run,
// encoding its comparison and splicing it into the run's document, and
// writes the documents in the order they were added as they are done: the
// bytes are those of judging and writing them one after the other, since a
// judgement depends only on the runs read (planned first, from the light
// summaries) and never on another judgement. A document of bigDoc bytes
// or more is read back and spliced by the writer, one at a time: the
// workers holding several at once could hold gigabytes.
func (s *workloadSpool) writeJudged(out *jsonArrayWriter, o workload.Options) error {
	sums := make([]workload.Summary, len(s.runs))
	for i := range s.runs {
		sums[i] = s.runs[i].summary
	}
	plans := workload.PlanJudgements(sums, o)
	limit := s.detailsLimit
	if limit == 0 {
		limit = 2*(max(o.BaselineRuns, workload.DefaultBaselineRuns)+1) + 2*s.workers
	}
	details := newDetailsCache(s, plans, limit)
	type done struct {
		elem   []byte // nil: a big document, for the writer to read
		splice *comparisonSplice
		err    error
	}
	var failed error
	inorder.Each(len(s.runs), s.workers, 2*s.workers, func(i int) (d done) {
		if j := plans[i]; j != nil {
			if d.splice, d.err = s.judge(i, j, details, o); d.err != nil {
				return d
			}
		}
		if s.runs[i].elem.n < s.bigDoc {
			d.elem, d.err = s.document(i, d.splice)
		}
		return d
	}, func(i int, d done) bool {
		if d.err == nil && d.elem == nil {
			d.elem, d.err = s.document(i, d.splice)
		}
		if failed = d.err; failed == nil {
			failed = out.add(d.elem)
		}
		return failed == nil
	})
	return failed
}

// document is run i's document, with its workload comparison spliced in
// when it has one (sp not nil).
func (s *workloadSpool) document(i int, sp *comparisonSplice) ([]byte, error) {
	run := &s.runs[i]
	elem, err := s.read(run.elem)
	if err != nil || sp == nil {
		return elem, err
	}
	return withComparison(elem, run.findings, sp)
}

// judge judges run i as j plans and encodes its comparison.
func (s *workloadSpool) judge(i int, j *workload.Judgement, details *detailsCache, o workload.Options) (*comparisonSplice, error) {
	sum := s.runs[i].summary
	if err := details.lend(i, &sum); err != nil {
		return nil, err
	}
	done := make([]workload.Summary, len(j.Done))
	for k, d := range j.Done {
		done[k] = s.runs[d].summary
	}
	for _, k := range j.Details {
		if err := details.lend(j.Done[k], &done[k]); err != nil {
			return nil, err
		}
	}
	res := j.Judge(&sum, done, o)
	return newComparisonSplice(&res)
}

// detailsCache loads the runs' details for the judgements. A run's details
// serve its own judgement and those of the later runs that compare with
// it (the previous finished run, the baseline's closest): they are
// decoded once, not for each judgement that reads them (40 decodings
// instead of 79 for 40 copies of a log). A run's details are kept while
// judgements are still to read them, at most limit runs' at once (the
// least recently read go first and are decoded again if read again), so
// memory holds a few runs' details, not every run's.
type detailsCache struct {
	s     *workloadSpool
	limit int

	mu   sync.Mutex
	left []int32 // by run: the judgements still to read its details
	kept map[int]*loadedDetails
	tick uint64
}

type loadedDetails struct {
	once     sync.Once
	sum      workload.Summary // with the details
	err      error
	lastRead uint64 // detailsCache.tick when last read
}

func newDetailsCache(s *workloadSpool, plans []*workload.Judgement, limit int) *detailsCache {
	c := &detailsCache{s: s, limit: limit, left: make([]int32, len(plans)), kept: map[int]*loadedDetails{}}
	for i, j := range plans {
		if j == nil {
			continue
		}
		c.left[i]++
		for _, k := range j.Details {
			c.left[j.Done[k]]++
		}
	}
	return c
}

// lend sets sum's details to run i's.
func (c *detailsCache) lend(i int, sum *workload.Summary) error {
	c.mu.Lock()
	e := c.kept[i]
	if e == nil {
		e = &loadedDetails{}
		if c.left[i] > 1 {
			c.keep(i, e)
		}
	}
	if c.left[i]--; c.left[i] <= 0 {
		delete(c.kept, i)
	}
	c.tick++
	e.lastRead = c.tick
	c.mu.Unlock()
	e.once.Do(func() { e.sum, e.err = c.s.load(i) })
	sum.Properties, sum.Stages = e.sum.Properties, e.sum.Stages
	return e.err
}

// keep keeps e as run i's, dropping the least recently read when full;
// c.mu is held.
func (c *detailsCache) keep(i int, e *loadedDetails) {
	if len(c.kept) >= c.limit {
		oldest := -1
		for k, v := range c.kept {
			if oldest < 0 || v.lastRead < c.kept[oldest].lastRead {
				oldest = k
			}
		}
		delete(c.kept, oldest)
	}
	c.kept[i] = e
}

// close closes and removes the file.
func (s *workloadSpool) close() error {
	err := s.f.Close()
	if !s.removed {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}

// comparisonSplice is what a judged run adds to its document, encoded as
// members of an element: its workload_regression finding (nil when none)
// and its workload comparison.
type comparisonSplice struct {
	finding, comparison []byte
}

func newComparisonSplice(r *workload.Result) (*comparisonSplice, error) {
	var sp comparisonSplice
	if f, ok := r.Finding(); ok {
		b, err := json.MarshalIndent(f, "      ", "  ")
		if err != nil {
			return nil, err
		}
		sp.finding = b
	}
	b, err := json.MarshalIndent(newWorkloadComparison(r), "    ", "  ")
	if err != nil {
		return nil, err
	}
	sp.comparison = b
	return &sp, nil
}

// withComparison adds the run's workload_regression finding (if any) to the
// findings of an element and its workload comparison as its last member,
// as encodeElement would have written them.
func withComparison(elem []byte, findings section, sp *comparisonSplice) ([]byte, error) {
	rest := elem[findings.off+findings.n:]
	const end = "\n  }"
	if !bytes.HasSuffix(rest, []byte(end)) {
		return nil, errors.New("a document does not end as an element of the array")
	}
	var out bytes.Buffer
	out.Grow(len(elem) + len(sp.finding) + len(sp.comparison) + 64)
	out.Write(elem[:findings.off])
	old := findings.of(elem)
	if sp.finding != nil {
		if string(old) == "[]" || string(old) == "null" {
			out.WriteString("[\n      ")
		} else {
			out.Write(bytes.TrimSuffix(old, []byte("\n    ]")))
			out.WriteString(",\n      ")
		}
		out.Write(sp.finding)
		out.WriteString("\n    ]")
	} else {
		out.Write(old)
	}
	out.Write(rest[:len(rest)-len(end)])
	out.WriteString(",\n    \"workloadComparison\": ")
	out.Write(sp.comparison)
	out.WriteString(end)
	return out.Bytes(), nil
}
