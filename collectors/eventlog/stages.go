package eventlog

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/internal/analysis"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// DefaultMaxStages is --eventlog.max-stages: stage ids kept per
// application in the spark_stage_* series.
const DefaultMaxStages = 50

// otherStage is the stage_id of the stages beyond --eventlog.max-stages.
const otherStage = "other"

var (
	stageDuration     = of(sm.StageDuration)
	stageTasks        = of(sm.StageTasksTotal)
	stageTaskTime     = of(sm.StageTaskTime)
	stageSpill        = of(sm.StageSpillBytes)
	stageShuffleRead  = of(sm.StageShuffleReadBytes)
	stageShuffleWrite = of(sm.StageShuffleWriteBytes)
	stageInput        = of(sm.StageInputBytes)
	stageOutput       = of(sm.StageOutputBytes)
	stageEnergy       = of(sm.StageEnergy)
	stageCost         = of(sm.StageCost)
	jobDuration       = of(sm.JobDuration)
	jobsTotal         = of(sm.JobsTotal)
	appEnergy         = of(sm.AppEnergy)
	appCost           = of(sm.AppCost)
)

// stageRow is one stage id's figures (its attempts summed), or those of
// every stage beyond the limit.
type stageRow struct {
	id       string
	duration float64
	tasks    [3]float64 // success, failed, killed
	// execTotals holds the figures a stage shares with an executor: task
	// time by category (cpu, shuffle, serde, gc, run; seconds), spill,
	// shuffle, input and output bytes.
	execTotals
	energyJoules   float64
	measuredJoules float64 // of the node agents' measurement (measured.go)
	cost           float64
}

// stagesView is an application's stage, job and energy figures.
type stagesView struct {
	rows         []stageRow // by stage_id as a string, the order series sort in
	jobDurations []float64  // finished jobs, seconds
	jobsEnded    [2]float64 // failed, succeeded
	energyWh     float64
	energySource string
	// measured is set when a node agent in this process measured some of
	// the application's executors: measuredWh and the rows' measuredJoules
	// are then exported with source="measured".
	measured   bool
	measuredWh float64
	// cost and currency are the application's (currency empty: cost off);
	// stageCost is set once the application ended.
	cost      float64
	currency  string
	stageCost bool
}

// buildStagesView sums r's stage attempts per stage id, keeps the
// maxStages most recent ids (stage ids grow with submission) and sums the
// others into "other".
func buildStagesView(r *analysis.Report, maxStages int) *stagesView {
	byID := map[int]*stageRow{}
	for i := range r.Stages {
		s := &r.Stages[i]
		row := byID[s.StageID]
		if row == nil {
			row = &stageRow{id: strconv.Itoa(s.StageID)}
			byID[s.StageID] = row
		}
		addStage(row, s, r.LastEventTime)
	}
	if e := r.Energy; e != nil {
		for _, se := range e.Stages {
			if row := byID[se.StageID]; row != nil {
				row.energyJoules += se.Joules
			}
		}
	}
	if c := r.Cost; c != nil {
		for _, sc := range c.Stages {
			if row := byID[sc.StageID]; row != nil {
				row.cost += sc.Cost
			}
		}
	}
	ids := make([]int, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(b, a) }) // newest first
	v := &stagesView{}
	var other *stageRow
	for i, id := range ids {
		row := byID[id]
		if i < maxStages {
			v.rows = append(v.rows, *row)
			continue
		}
		if other == nil {
			other = &stageRow{id: otherStage}
		}
		other.add(row)
	}
	if other != nil {
		v.rows = append(v.rows, *other)
	}
	slices.SortFunc(v.rows, func(a, b stageRow) int { return strings.Compare(a.id, b.id) })
	for i := range r.Jobs {
		if j := &r.Jobs[i]; j.Status != analysis.JobRunning && j.SubmissionTime > 0 && j.CompletionTime >= j.SubmissionTime {
			v.jobDurations = append(v.jobDurations, float64(j.DurationMs())/1e3)
		}
	}
	v.jobsEnded = [2]float64{float64(r.JobCounts.Failed), float64(r.JobCounts.Succeeded)}
	if e := r.Energy; e != nil {
		v.energyWh, v.energySource = e.WattHours, e.Source
	}
	if c := r.Cost; c != nil {
		v.cost, v.currency, v.stageCost = c.Total, c.Model.Currency, !r.Live
	}
	return v
}

// addStage adds one attempt in the History Server's fields and units.
func addStage(row *stageRow, s *analysis.Stage, lastEvent int64) {
	if s.SubmissionTime > 0 {
		end := s.CompletionTime
		if end == 0 && s.Status == analysis.StatusActive {
			end = lastEvent
		}
		row.duration += float64(max(end-s.SubmissionTime, 0)) / 1e3
	}
	row.tasks[0] += float64(s.NumCompleteTasks)
	row.tasks[1] += float64(s.NumFailedTasks)
	row.tasks[2] += float64(s.NumKilledTasks)
	sums := s.TaskSums()
	row.execTotals.Add(&sums)
}

func (row *stageRow) add(o *stageRow) {
	row.duration += o.duration
	for i := range row.tasks {
		row.tasks[i] += o.tasks[i]
	}
	row.execTotals.Add(&o.execTotals)
	row.energyJoules += o.energyJoules
	row.measuredJoules += o.measuredJoules
	row.cost += o.cost
}

// stageFamilies emit the stage, job and energy series; each family lists
// its series in label-value order (category/medium/source < stage_id <
// status).
var stageFamilies = []family{
	stageFamily(stageDuration, func(r *stageRow) float64 { return r.duration }),
	{m: stageTasks, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, r := range p.stageRows() {
			id := p.pair("stage_id", r.id)
			for _, status := range sm.TaskStatusLabel.Values {
				p.send(stageTasks, r.tasks[statusIndex[status]], id, statusPairs[status])
			}
		}
	}},
	{m: stageTaskTime, emit: func(ch sink, p *appPairs, _ time.Time) {
		rows := p.stageRows()
		ids := p.stageIDPairs(rows)
		for _, c := range sm.TaskTimeCategory.Values {
			for i := range rows {
				p.send(stageTaskTime, rows[i].Time[taskTimeIndex[c]], ids[i], taskTimePairs[c])
			}
		}
	}},
	{m: stageSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		rows := p.stageRows()
		ids := p.stageIDPairs(rows)
		for i := range rows {
			p.send(stageSpill, rows[i].DiskSpill, ids[i], mediumPairs[sm.MediumDisk])
		}
		for i := range rows {
			p.send(stageSpill, rows[i].MemorySpill, ids[i], mediumPairs[sm.MediumMemory])
		}
	}},
	stageFamily(stageShuffleRead, func(r *stageRow) float64 { return r.ShuffleRead }),
	stageFamily(stageShuffleWrite, func(r *stageRow) float64 { return r.ShuffleWrite }),
	stageFamily(stageInput, func(r *stageRow) float64 { return r.Input }),
	stageFamily(stageOutput, func(r *stageRow) float64 { return r.Output }),
	{m: stageEnergy, emit: func(ch sink, p *appPairs, _ time.Time) {
		sv := p.v.stages
		if sv == nil || sv.energySource == "" {
			return
		}
		if sv.measured { // "measured" sorts before "model"
			src := p.pair("source", string(sm.EnergyMeasured))
			for _, r := range sv.rows {
				p.send(stageEnergy, r.measuredJoules, p.pair("stage_id", r.id), src)
			}
		}
		src := p.pair("source", sv.energySource)
		for _, r := range sv.rows {
			p.send(stageEnergy, r.energyJoules, p.pair("stage_id", r.id), src) // declared order: stage_id, source
		}
	}},
	{m: stageCost, emit: func(ch sink, p *appPairs, _ time.Time) {
		sv := p.v.stages
		if sv == nil || !sv.stageCost {
			return
		}
		cur := p.pair("currency", sv.currency)
		for _, r := range sv.rows {
			p.send(stageCost, r.cost, p.pair("stage_id", r.id), cur) // declared order: stage_id, currency
		}
	}},
	{m: jobDuration, emit: func(ch sink, p *appPairs, _ time.Time) {
		sv := p.v.stages
		if sv == nil || len(sv.jobDurations) == 0 {
			return
		}
		d := sv.jobDurations
		if p.created <= 0 {
			ch(prometheus.MustNewConstSummary(jobDuration.Desc(), uint64(len(d)), sum(d), quantiles(d), p.value(p.id), p.value(p.name)))
			return
		}
		ch(prometheus.MustNewConstSummaryWithCreatedTimestamp(jobDuration.Desc(), uint64(len(d)), sum(d), quantiles(d), time.UnixMilli(p.created), p.value(p.id), p.value(p.name)))
	}},
	{m: jobsTotal, emit: func(ch sink, p *appPairs, _ time.Time) {
		if sv := p.v.stages; sv != nil {
			p.send(jobsTotal, sv.jobsEnded[0], jobStatusPairs[sm.JobFailed])
			p.send(jobsTotal, sv.jobsEnded[1], jobStatusPairs[sm.JobSucceeded])
		}
	}},
	{m: appEnergy, emit: func(ch sink, p *appPairs, _ time.Time) {
		sv := p.v.stages
		if sv == nil || sv.energySource == "" {
			return
		}
		if sv.measured {
			p.send(appEnergy, sv.measuredWh, p.pair("source", string(sm.EnergyMeasured)))
		}
		p.send(appEnergy, sv.energyWh, p.pair("source", sv.energySource))
	}},
	{m: appCost, emit: func(ch sink, p *appPairs, _ time.Time) {
		if sv := p.v.stages; sv != nil && sv.currency != "" {
			p.send(appCost, sv.cost, p.pair("currency", sv.currency))
		}
	}},
}

func (p *appPairs) stageRows() []stageRow {
	if p.v.stages == nil {
		return nil
	}
	return p.v.stages.rows
}

func (p *appPairs) stageIDPairs(rows []stageRow) []pairRef {
	out := make([]pairRef, len(rows))
	for i := range rows {
		out[i] = p.pair("stage_id", rows[i].id)
	}
	return out
}

// stageFamily emits m for every kept stage id and "other".
func stageFamily(m *Metric, value func(*stageRow) float64) family {
	return family{m: m, emit: func(ch sink, p *appPairs, _ time.Time) {
		rows := p.stageRows()
		for i := range rows {
			p.send(m, value(&rows[i]), p.pair("stage_id", rows[i].id))
		}
	}}
}
