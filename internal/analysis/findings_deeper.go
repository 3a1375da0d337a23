package analysis

import (
	"cmp"
	"slices"
)

// Finding kinds about the executor count, retries and the driver.
const (
	KindExecutorCountOversized = "executor_count_oversized"
	KindStageRetries           = "stage_retries"
	KindDriverMemoryPressure   = "driver_memory_pressure"
)

var (
	thExecutorCountTolerance = Threshold{"executor-count.tolerance", "The what-if's ideal executor count is the fewest predicted to run at most this share slower than today's count…",
		func(c *Config) any { return &c.Thresholds.ExecutorCountTolerance }}
	thExecutorCountOversized = Threshold{"executor-count.oversized", "…and executor_count_oversized fires when it is at most this share of today's peak executor count.",
		func(c *Config) any { return &c.Thresholds.ExecutorCountOversized }}
	thStageRetriesMinLost = Threshold{"stage-retries.min-lost", "stage_retries: a stage was retried or hit fetch failures, losing at least this much task time in its failed attempts.",
		func(c *Config) any { return &c.Thresholds.StageRetriesMinLost }}
	thDriverHeapShare = Threshold{"driver-memory.heap-share", "driver_memory_pressure: the driver's peak heap reached this share of spark.driver.memory…",
		func(c *Config) any { return &c.Thresholds.DriverHeapShare }}
	thDriverGCShare = Threshold{"driver-memory.gc-share", "…or its GC time this share of the application's wall time.",
		func(c *Config) any { return &c.Thresholds.DriverGCShare }}
)

// StageRetries is one stage's failed attempts and fetch failures.
type StageRetries struct {
	StageID        int   `json:"stageId"`
	Attempts       int   `json:"attempts"`       // attempts that ran
	FailedAttempts int   `json:"failedAttempts"` // attempts that ended with a failure reason
	LastAttemptID  int   `json:"lastAttemptId"`
	FetchFailures  int   `json:"fetchFailures"` // task ends with reason FetchFailed, over all attempts
	LostTaskMs     int64 `json:"lostTaskMs"`    // task time of the failed attempts: work done again
}

// DriverMemory is what the log tells of the driver's JVM: its executor
// metrics (peaks per stage, Spark 3.0+) and spark.driver.memory.
type DriverMemory struct {
	HeapPeakBytes int64 `json:"heapPeakBytes,omitempty"` // largest JVMHeapMemory (used heap)
	// HeapMaxBytes is spark.driver.memory: the log has no JVM maximum.
	HeapMaxBytes int64 `json:"heapMaxBytes,omitempty"`
	// GCTimeMs is the driver JVM's minor plus major GC time since it
	// started; HasGCTime is false when its metrics carry no GC times.
	GCTimeMs  int64 `json:"gcTimeMs"`
	HasGCTime bool  `json:"hasGcTime"`
}

// stageRetries lists the stages with more than one attempt or a fetch
// failure, by stage id.
func (a *App) stageRetries() []StageRetries {
	by := map[int]*StageRetries{}
	for k, s := range a.deep.stages {
		if s.submission <= 0 && s.tasks == 0 {
			continue
		}
		sr := by[k.id]
		if sr == nil {
			sr = &StageRetries{StageID: k.id}
			by[k.id] = sr
		}
		sr.Attempts++
		sr.LastAttemptID = max(sr.LastAttemptID, k.attempt)
		sr.FetchFailures += s.fetchFailed
		if s.failed {
			sr.FailedAttempts++
			sr.LostTaskMs += s.taskMs
		}
	}
	out := []StageRetries{}
	for _, sr := range by {
		if sr.Attempts > 1 || sr.FetchFailures > 0 || sr.LastAttemptID > 0 {
			out = append(out, *sr)
		}
	}
	slices.SortFunc(out, func(x, y StageRetries) int { return cmp.Compare(x.StageID, y.StageID) })
	return out
}

func (a *App) driverMemory() *DriverMemory {
	d := &a.deep
	if !d.driverMetrics && d.driverMemory == 0 {
		return nil
	}
	return &DriverMemory{HeapPeakBytes: d.driverHeapPeak, HeapMaxBytes: d.driverMemory, GCTimeMs: d.driverGCPeakMs, HasGCTime: d.driverGCMetrics}
}

func checkExecutorCount(r *Report, th Thresholds) []Finding {
	w := r.WhatIf
	if w == nil || w.Local || w.Executors < 2 || float64(w.IdealExecutors) > th.ExecutorCountOversized*float64(w.Executors) || !w.supportsFindings(r) {
		return nil
	}
	var today, ideal Prediction
	for _, p := range w.Predictions {
		switch p.Executors {
		case w.Executors:
			today = p
		case w.IdealExecutors:
			ideal = p
		}
	}
	return []Finding{{Numbers: map[string]float64{
		"executors": float64(w.Executors), "idealExecutors": float64(w.IdealExecutors),
		"predictedWallSeconds": float64(today.WallMs) / 1e3, "idealWallSeconds": float64(ideal.WallMs) / 1e3,
		"coreHoursSaved": w.CoreHoursSaved,
	}}}
}

func checkStageRetries(r *Report, th Thresholds) []Finding {
	var out []Finding
	for _, sr := range r.StageRetries {
		if sr.LostTaskMs < th.StageRetriesMinLost.Milliseconds() {
			continue
		}
		id, att := sr.StageID, sr.LastAttemptID
		out = append(out, Finding{StageID: &id, StageAttemptID: &att, Numbers: map[string]float64{
			"attempts": float64(sr.Attempts), "failedAttempts": float64(sr.FailedAttempts),
			"fetchFailures": float64(sr.FetchFailures), "lostTaskSeconds": float64(sr.LostTaskMs) / 1e3,
		}})
	}
	return out
}

func checkDriverMemory(r *Report, th Thresholds) []Finding {
	d := r.Driver
	if d == nil {
		return nil
	}
	n := map[string]float64{}
	fire := false
	if d.HeapMaxBytes > 0 && d.HeapPeakBytes > 0 {
		share := float64(d.HeapPeakBytes) / float64(d.HeapMaxBytes)
		n["heapPeakBytes"], n["heapMaxBytes"], n["heapShare"] = float64(d.HeapPeakBytes), float64(d.HeapMaxBytes), share
		fire = share >= th.DriverHeapShare
	}
	if wall := r.End - r.Start; d.HasGCTime && wall > 0 {
		share := float64(d.GCTimeMs) / float64(wall)
		n["gcSeconds"], n["gcShare"] = float64(d.GCTimeMs)/1e3, share
		fire = fire || share >= th.DriverGCShare
	}
	if !fire {
		return nil
	}
	return []Finding{{ExecutorID: "driver", Numbers: n}}
}
