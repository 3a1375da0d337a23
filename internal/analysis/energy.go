package analysis

// Energy model defaults, each from a published source (docs/energy.md):
const (
	// DefaultCoreWatts is CodeCarbon's DEFAULT_POWER_PER_CORE: what it
	// charges per hardware thread when the CPU model is not in its table.
	DefaultCoreWatts = 4.0
	// DefaultIdleRatio is CodeCarbon's cpu_load power curve at zero load
	// (TDP × (0.1 + 0.9 × load³)): an idle core still draws 10 %.
	DefaultIdleRatio = 0.1
	// DefaultCarbonIntensity is the world average carbon intensity of
	// electricity generation in 2023, in gCO2e/kWh (Ember, Global
	// Electricity Review 2024).
	DefaultCarbonIntensity = 480.0
)

// EnergySourceModel marks energy computed from CPU time × per-core watts;
// EnergySourceMeasured energy divided from a node agent's measurement.
const (
	EnergySourceModel    = "model"
	EnergySourceMeasured = "measured"
)

// EnergyModel turns task CPU time into energy. The zero value means the
// defaults.
type EnergyModel struct {
	// CoreWatts is the power of one busy core (hardware thread).
	CoreWatts float64 `json:"coreWatts"`
	// IdleRatio is the share of CoreWatts an allocated but idle core draws.
	IdleRatio float64 `json:"idleRatio"`
	// CarbonIntensity is the electricity's gCO2e per kWh.
	CarbonIntensity float64 `json:"carbonIntensityGPerKWh"`
	// Where CoreWatts came from when the node's power was given instead
	// (the node agent's TDP flag or CPU model, over the node's hardware
	// threads): the CPU model as the TDP table names it, the node's TDP and
	// its threads. Empty when CoreWatts was given or defaulted.
	CPUModel     string  `json:"cpuModel,omitempty"`
	NodeTDPWatts float64 `json:"nodeTdpWatts,omitempty"`
	NodeCPUs     int     `json:"nodeCpus,omitempty"`
}

// DefaultEnergyModel returns the documented defaults.
func DefaultEnergyModel() EnergyModel {
	return EnergyModel{CoreWatts: DefaultCoreWatts, IdleRatio: DefaultIdleRatio, CarbonIntensity: DefaultCarbonIntensity}
}

// Grams is the gCO2e of joules at the model's carbon intensity.
func (m EnergyModel) Grams(joules float64) float64 {
	return joules / JoulesPerWattHour / 1000 * m.CarbonIntensity
}

// JoulesPerWattHour converts joules to watt-hours.
const JoulesPerWattHour = 3600.0

// Energy is where an application's energy went: active energy is task CPU
// time × CoreWatts, idle energy the allocated core time no task used ×
// CoreWatts × IdleRatio. Stages and jobs carry active energy only (idle
// cores belong to no stage).
type Energy struct {
	Model  EnergyModel `json:"model"`
	Source string      `json:"source"` // EnergySourceModel
	// CPUSeconds is the task CPU time of all tasks (as totals.cpuSeconds).
	CPUSeconds      float64 `json:"cpuSeconds"`
	ActiveJoules    float64 `json:"activeJoules"`
	IdleCoreSeconds float64 `json:"idleCoreSeconds"`
	IdleJoules      float64 `json:"idleJoules"`
	Joules          float64 `json:"joules"` // active + idle
	WattHours       float64 `json:"wattHours"`
	CarbonGrams     float64 `json:"carbonGrams"`

	Stages    []StageEnergy    `json:"stages"`
	Jobs      []JobEnergy      `json:"jobs"`
	Executors []ExecutorEnergy `json:"executors"`
}

// StageEnergy is one stage attempt's active energy.
type StageEnergy struct {
	StageID     int     `json:"stageId"`
	AttemptID   int     `json:"attemptId"`
	CPUSeconds  float64 `json:"cpuSeconds"`
	Joules      float64 `json:"joules"`
	CarbonGrams float64 `json:"carbonGrams"`
}

// JobEnergy is the active energy of a job's stages, all their attempts.
type JobEnergy struct {
	JobID       int     `json:"jobId"`
	CPUSeconds  float64 `json:"cpuSeconds"`
	Joules      float64 `json:"joules"`
	CarbonGrams float64 `json:"carbonGrams"`
}

// ExecutorEnergy is one executor's active and idle energy.
type ExecutorEnergy struct {
	ExecutorID      string  `json:"executorId"`
	CPUSeconds      float64 `json:"cpuSeconds"`
	IdleCoreSeconds float64 `json:"idleCoreSeconds"`
	ActiveJoules    float64 `json:"activeJoules"`
	IdleJoules      float64 `json:"idleJoules"`
	Joules          float64 `json:"joules"`
	CarbonGrams     float64 `json:"carbonGrams"`
}

// energy computes r's energy from its stages, jobs and totals; r's
// intervals, stages and jobs must be filled.
func (a *App) energy(r *Report) *Energy {
	m := a.cfg.Energy
	if m == (EnergyModel{}) {
		m = DefaultEnergyModel()
	}
	e := &Energy{Model: m, Source: EnergySourceModel, CPUSeconds: r.Totals.CPUSeconds,
		Stages: make([]StageEnergy, 0, len(r.Stages)), Jobs: make([]JobEnergy, 0, len(r.Jobs))}
	byStage := map[int]float64{} // stage id → CPU seconds of all its attempts
	for i := range r.Stages {
		s := &r.Stages[i]
		cpu := float64(s.ExecutorCPUTime) / 1e9
		byStage[s.StageID] += cpu
		j := cpu * m.CoreWatts
		e.Stages = append(e.Stages, StageEnergy{StageID: s.StageID, AttemptID: s.AttemptID, CPUSeconds: cpu, Joules: j, CarbonGrams: m.Grams(j)})
	}
	for i := range r.Jobs {
		job := &r.Jobs[i]
		var cpu float64
		for _, id := range job.StageIDs {
			cpu += byStage[id]
		}
		j := cpu * m.CoreWatts
		e.Jobs = append(e.Jobs, JobEnergy{JobID: job.JobID, CPUSeconds: cpu, Joules: j, CarbonGrams: m.Grams(j)})
	}
	e.ActiveJoules = e.CPUSeconds * m.CoreWatts
	e.IdleCoreSeconds = max(r.Totals.AvailableCoreSecs-r.Totals.CPUSeconds, 0)
	e.IdleJoules = e.IdleCoreSeconds * m.CoreWatts * m.IdleRatio
	e.Joules = e.ActiveJoules + e.IdleJoules
	e.WattHours = e.Joules / JoulesPerWattHour
	e.CarbonGrams = m.Grams(e.Joules)
	e.Executors = a.executorEnergy(r, m)
	return e
}

// executorEnergy charges each executor its tasks' CPU time and its
// lifetimes' core time left idle.
func (a *App) executorEnergy(r *Report, m EnergyModel) []ExecutorEnergy {
	// Summed in integer nanoseconds: a.stages is a map, and a float sum in
	// its random order would change the last digits from run to run. One
	// entry per executor, by its index; ids never indexed (the local
	// driver's lifetime) after them.
	type sums struct {
		cpuNs    int64
		coreSecs float64
		used     bool
	}
	per := make([]sums, len(a.execIDs))
	var extra map[string]int // id not indexed → its entry in per
	get := func(id string) *sums {
		i, ok := a.execIndex.lookup(id)
		if ok {
			return &per[i]
		}
		j, ok := extra[id]
		if !ok {
			if extra == nil {
				extra = map[string]int{}
			}
			j = len(per)
			extra[id] = j
			per = append(per, sums{})
		}
		return &per[j]
	}
	for _, st := range a.stages {
		if !st.known {
			continue
		}
		for i := range int32(st.execs.len()) {
			es := st.execs.at(i)
			s := &per[es.exec]
			s.cpuNs += es.m.cpuTime
			s.used = true
		}
	}
	if a.cfg.CPUs <= 0 { // with --cpus the cores belong to no executor
		for _, l := range a.coreLives(r.Start, r.End) {
			if l.to > l.from && l.cores > 0 {
				s := get(l.exec)
				s.coreSecs += float64(l.cores) * float64(l.to-l.from) / 1e3
				s.used = true
			}
		}
	}
	type entry struct {
		id string
		at int
	}
	ids := make([]entry, 0, len(per))
	for i := range per {
		if !per[i].used {
			continue
		}
		if i < len(a.execIDs) {
			ids = append(ids, entry{a.execIDs[i], i})
		}
	}
	for id, j := range extra {
		if per[j].used {
			ids = append(ids, entry{id, j})
		}
	}
	sortByExecID(ids, func(e *entry) string { return e.id })
	out := make([]ExecutorEnergy, 0, len(ids))
	for _, e := range ids {
		id, s := e.id, per[e.at]
		cpu := float64(s.cpuNs) / 1e9
		x := ExecutorEnergy{ExecutorID: id, CPUSeconds: cpu, IdleCoreSeconds: max(s.coreSecs-cpu, 0)}
		x.ActiveJoules = x.CPUSeconds * m.CoreWatts
		x.IdleJoules = x.IdleCoreSeconds * m.CoreWatts * m.IdleRatio
		x.Joules = x.ActiveJoules + x.IdleJoules
		x.CarbonGrams = m.Grams(x.Joules)
		out = append(out, x)
	}
	return out
}
