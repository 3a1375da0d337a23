package workload

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/sparkglance/sparkglance/internal/analysis"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/workloadkey"
)

// Key is the workload key of an application (see package workloadkey).
func Key(props map[string]string, appName string, o workloadkey.Options) string {
	return workloadkey.Of(props, appName, o)
}

// Measure names one baselined quantity of a run. The names are the
// `measure` label of the spark_workload_* series.
type Measure int

// The measures, in the order they are shown.
const (
	WallTime        Measure = iota // seconds from application start to end (or the last event of a live run)
	TaskCPUTime                    // seconds of task CPU time
	CoreHours                      // available (allocated) core-hours
	Efficiency                     // task CPU time over available core time
	WastedCoreHours                // available core-hours not spent on task CPU
	SpillMemory                    // bytes spilled from memory
	SpillDisk                      // bytes spilled to disk
	ShuffleRead                    // shuffle bytes read
	ShuffleWrite                   // shuffle bytes written
	InputBytes                     // bytes read from input
	Energy                         // watt-hours (the energy model)
	Cost                           // in the cost model's currency
	NumMeasures
)

// measureNames are the measures' label values, declared in the metric
// schema (the measure label of the spark_workload_* families).
var measureNames = [NumMeasures]sm.Measure{sm.MeasureWallTime, sm.MeasureTaskCPUTime, sm.MeasureCoreHours, sm.MeasureEfficiency,
	sm.MeasureWastedCoreHours, sm.MeasureSpillMemory, sm.MeasureSpillDisk, sm.MeasureShuffleRead, sm.MeasureShuffleWrite,
	sm.MeasureInput, sm.MeasureEnergy, sm.MeasureCost}

var measureUnits = [NumMeasures]string{"seconds", "seconds", "core-hours", "ratio", "core-hours",
	"bytes", "bytes", "bytes", "bytes", "bytes", "watt-hours", "currency"}

var measureTitles = [NumMeasures]string{"wall time", "task CPU time", "core-hours", "efficiency", "wasted core-hours",
	"memory spill", "disk spill", "shuffle read", "shuffle write", "input", "energy", "cost"}

// String is the measure's label value, e.g. "wall_time".
func (m Measure) String() string {
	if m < 0 || m >= NumMeasures {
		return "measure(" + strconv.Itoa(int(m)) + ")"
	}
	return string(measureNames[m])
}

// Unit is the measure's unit: seconds, bytes, core-hours, watt-hours,
// ratio or currency (the cost model's).
func (m Measure) Unit() string { return measureUnits[m] }

// Title is the measure's name in sentences, e.g. "wall time".
func (m Measure) Title() string { return measureTitles[m] }

// Measures lists every measure in order.
func Measures() []Measure {
	out := make([]Measure, NumMeasures)
	for i := range out {
		out[i] = Measure(i)
	}
	return out
}

// extensive measures grow with the amount of work; input growth may
// explain them.
func (m Measure) extensive() bool { return m != Efficiency && m != InputBytes }

// Values holds one value per measure; a measure may be unknown (no task
// CPU time in the log, cost turned off).
type Values struct {
	v     [NumMeasures]float64
	known uint16
}

// Get returns the value of m and whether it is known.
func (v Values) Get(m Measure) (float64, bool) { return v.v[m], v.known&(1<<m) != 0 }

// Set sets the value of m.
func (v *Values) Set(m Measure, x float64) { v.v[m], v.known = x, v.known|1<<m }

// MarshalJSON writes the known values as an object keyed by measure name.
func (v Values) MarshalJSON() ([]byte, error) {
	out := make(map[string]float64, NumMeasures)
	for m := range NumMeasures {
		if x, ok := v.Get(m); ok {
			out[m.String()] = x
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes; unknown names are ignored.
func (v *Values) UnmarshalJSON(b []byte) error {
	var in map[string]float64
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*v = Values{}
	for m := range NumMeasures {
		if x, ok := in[m.String()]; ok {
			v.Set(m, x)
		}
	}
	return nil
}

// Executors describes a run's executor set (the driver not counted, except
// a local-mode driver, which is the only executor).
type Executors struct {
	Count       int     `json:"count"`       // executors ever added
	Peak        int     `json:"peak"`        // most alive at once
	Cores       int     `json:"cores"`       // cores of most executors
	MemoryBytes float64 `json:"memoryBytes"` // per executor: spark.executor.memory + overhead
	Hosts       int     `json:"hosts"`
}

// StageSummary is one stage of a run, its attempts merged: what stage
// matching and the stage table need.
type StageSummary struct {
	// Key matches stages across runs: the stage name (Spark's call site,
	// e.g. "join at Nightly.scala:88"), with " #n" for its n-th stage of
	// that name from the second on.
	Key      string `json:"key"`
	Name     string `json:"name"`
	StageID  int    `json:"stageId"`
	Attempts int    `json:"attempts"`
	// WallMs is from the first attempt's submission to the last one's
	// completion (or the run's last event while it runs).
	WallMs       int64 `json:"wallMs"`
	TaskMs       int64 `json:"taskMs"` // executor run time of its tasks
	Tasks        int   `json:"tasks"`  // tasks completed
	SpillBytes   int64 `json:"spillBytes"`
	ShuffleRead  int64 `json:"shuffleReadBytes"`
	ShuffleWrite int64 `json:"shuffleWriteBytes"`
	InputBytes   int64 `json:"inputBytes"`
	Start        int64 `json:"start"` // epoch ms of the first submission
}

// Summary is one run of a workload, small enough to keep thousands.
type Summary struct {
	Workload     string    `json:"workload"`
	AppID        string    `json:"appId"`
	AttemptID    string    `json:"attemptId,omitempty"`
	AppName      string    `json:"appName"`
	Start        int64     `json:"start"`
	End          int64     `json:"end"`
	Finished     bool      `json:"finished"`
	SparkVersion string    `json:"sparkVersion"`
	Currency     string    `json:"currency,omitempty"`
	Values       Values    `json:"values"`
	Executors    Executors `json:"executors"`
	// Properties (redacted) and Stages are the heavy parts: a History
	// keeps them only for a workload's newest runs (nil on older ones).
	Properties map[string]string `json:"-"`
	Stages     []StageSummary    `json:"stages,omitempty"`
}

// ID names the run: its application id and attempt.
func (s *Summary) ID() string {
	if s.AttemptID == "" {
		return s.AppID
	}
	return s.AppID + "/" + s.AttemptID
}

// Detailed tells whether the heavy parts are kept.
func (s *Summary) Detailed() bool { return s.Properties != nil || s.Stages != nil }

// MaxStages bounds the stages a Summary keeps: the ones with the most task
// time. Beyond it the rest are summed into no stage (a job of many
// thousands of stages is compared by its biggest ones).
const MaxStages = 2000

// Summarize builds the run's summary from its analysis.
func Summarize(r *analysis.Report) Summary {
	s := Summary{
		Workload: r.Workload, AppID: r.AppID, AttemptID: r.AttemptID, AppName: r.AppName,
		Start: r.Start, End: r.End, Finished: !r.Live, SparkVersion: r.SparkVersion,
		// A copy: the summary outlives the analysis and shares none of it.
		Properties: maps.Clone(r.Properties),
	}
	if s.Properties == nil {
		s.Properties = map[string]string{}
	}
	t := r.Totals
	s.Values.Set(WallTime, float64(max(r.End-r.Start, 0))/1e3)
	s.Values.Set(CoreHours, t.AvailableCoreSecs/3600)
	s.Values.Set(SpillMemory, t.MemoryBytesSpill)
	s.Values.Set(SpillDisk, t.DiskBytesSpill)
	if r.CPUTimeAvailable {
		s.Values.Set(TaskCPUTime, t.CPUSeconds)
		if t.AvailableCoreSecs > 0 {
			s.Values.Set(Efficiency, t.CPUSeconds/t.AvailableCoreSecs)
			s.Values.Set(WastedCoreHours, max(0, t.AvailableCoreSecs-t.CPUSeconds)/3600)
		}
	}
	var read, write, input float64
	for i := range r.Stages {
		st := &r.Stages[i]
		read += float64(st.ShuffleReadBytes)
		write += float64(st.ShuffleWriteBytes)
		input += float64(st.InputBytes)
	}
	s.Values.Set(ShuffleRead, read)
	s.Values.Set(ShuffleWrite, write)
	s.Values.Set(InputBytes, input)
	if r.Energy != nil {
		s.Values.Set(Energy, r.Energy.WattHours)
	}
	if r.Cost != nil {
		s.Values.Set(Cost, r.Cost.Total)
		s.Currency = r.Cost.Model.Currency
	}
	s.Executors = executorSet(r)
	s.Stages = stageSummaries(r)
	return s
}

func executorSet(r *analysis.Report) Executors {
	var e Executors
	cores := map[int]int{}
	hosts := map[string]bool{}
	local := len(r.Executors) == 1 && r.Executors[0].ID == "driver"
	for _, ex := range r.Executors {
		if ex.ID == "driver" && !local {
			continue
		}
		e.Count++
		cores[ex.TotalCores]++
		host, _, _ := cutLast(ex.HostPort, ':')
		hosts[host] = true
	}
	e.Hosts = len(hosts)
	for c, n := range cores {
		if n > cores[e.Cores] || (n == cores[e.Cores] && c > e.Cores) {
			e.Cores = c
		}
	}
	// The peak: the most executors alive at once, from add/remove times.
	type edge struct {
		t int64
		d int
	}
	var edges []edge
	for _, ex := range r.Executors {
		if ex.ID == "driver" && !local {
			continue
		}
		edges = append(edges, edge{ex.AddTime, 1})
		if ex.RemoveTime > 0 {
			edges = append(edges, edge{ex.RemoveTime, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	n := 0
	for _, x := range edges {
		n += x.d
		e.Peak = max(e.Peak, n)
	}
	if !local {
		e.MemoryBytes = analysis.ExecutorMemoryBytes(r.Properties)
	}
	return e
}

func cutLast(s string, sep byte) (before, after string, found bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// stageSummaries merges each stage's attempts and keys them by name and
// occurrence, in order of first submission.
func stageSummaries(r *analysis.Report) []StageSummary {
	byID := map[int]int{}
	var out []StageSummary
	for i := range r.Stages {
		st := &r.Stages[i]
		start := st.SubmissionTime
		if start == 0 {
			start = st.FirstTaskLaunchedTime
		}
		end := st.CompletionTime
		if end == 0 && start > 0 {
			end = max(r.End, start)
		}
		j, ok := byID[st.StageID]
		if !ok {
			j = len(out)
			byID[st.StageID] = j
			out = append(out, StageSummary{Name: st.Name, StageID: st.StageID, Start: start})
		}
		o := &out[j]
		o.Attempts++
		if start > 0 && (o.Start == 0 || start < o.Start) {
			o.Start = start
		}
		if end > 0 {
			o.WallMs = max(o.WallMs, end-o.Start)
		}
		o.TaskMs += st.ExecutorRunTime
		o.Tasks += st.NumCompleteTasks
		o.SpillBytes += st.MemoryBytesSpilled + st.DiskBytesSpilled
		o.ShuffleRead += st.ShuffleReadBytes
		o.ShuffleWrite += st.ShuffleWriteBytes
		o.InputBytes += st.InputBytes
	}
	if len(out) > MaxStages {
		slices.SortStableFunc(out, func(a, b StageSummary) int { return cmp.Compare(b.TaskMs, a.TaskMs) })
		out = out[:MaxStages]
	}
	slices.SortStableFunc(out, func(a, b StageSummary) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.StageID, b.StageID))
	})
	seen := map[string]int{}
	for i := range out {
		seen[out[i].Name]++
		out[i].Key = out[i].Name
		if n := seen[out[i].Name]; n > 1 {
			out[i].Key += " #" + strconv.Itoa(n)
		}
	}
	if out == nil {
		out = []StageSummary{}
	}
	return out
}
