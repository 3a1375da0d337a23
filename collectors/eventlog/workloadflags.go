package eventlog

import (
	"fmt"
	"strconv"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workloadkey"
)

// RegisterCostFlags declares the --cost.* flags, defaulting to m's values
// and writing into them (serve, analyze, report and compare).
func RegisterCostFlags(f exporter.FlagGroup, m *analysis.CostModel) {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	f.Flag("cost.core-hour", "Price of one allocated executor core for an hour (default: an on-demand cloud vCPU-hour, docs/metrics.md); 0 turns cost off.").
		Default(g(m.CoreHour)).Float64Var(&m.CoreHour)
	f.Flag("cost.memory-gib-hour", "Price of one GiB of executor memory (spark.executor.memory plus overhead) for an hour (default: an on-demand cloud GiB-hour, docs/metrics.md).").
		Default(g(m.MemoryGiBHour)).Float64Var(&m.MemoryGiBHour)
	f.Flag("cost.currency", "Currency of the --cost.* prices, as a label and in the pages.").
		Default(m.Currency).StringVar(&m.Currency)
}

// CheckCostModel rejects prices no allocation can have.
func CheckCostModel(m analysis.CostModel) error {
	switch {
	case m.CoreHour < 0:
		return fmt.Errorf("--cost.core-hour=%g: must not be negative (0 turns cost off)", m.CoreHour)
	case m.MemoryGiBHour < 0:
		return fmt.Errorf("--cost.memory-gib-hour=%g: must not be negative", m.MemoryGiBHour)
	case m.CoreHour > 0 && m.Currency == "":
		return fmt.Errorf("--cost.currency is empty")
	}
	return nil
}

// WorkloadFlags are the --workload.* flags the commands share.
type WorkloadFlags struct {
	Key          workloadkey.Options // Verbatim is set from Normalize by Resolve
	Normalize    bool
	BaselineRuns int
}

// DefaultWorkloadFlags returns the flags' defaults.
func DefaultWorkloadFlags() WorkloadFlags {
	return WorkloadFlags{Normalize: true, BaselineRuns: workload.DefaultBaselineRuns}
}

// RegisterWorkloadFlags declares how runs are grouped into workloads and
// how many runs their baseline takes.
func RegisterWorkloadFlags(f exporter.FlagGroup, w *WorkloadFlags) {
	f.Flag("workload.key-property", "Spark property naming a run's workload, before spark.sparkglance.workload and the normalised application name (repeatable: the first one set wins).").
		StringsVar(&w.Key.Properties)
	f.Flag("workload.normalize", "Replace the run-specific parts of an application name (dates, timestamps, UUIDs, application ids, runs of 6+ digits) by placeholders in its workload key (true or false).").
		Default(strconv.FormatBool(w.Normalize)).SetValue(explicitBool{&w.Normalize})
	f.Flag("workload.baseline-runs", fmt.Sprintf("A workload's baseline is the median of this many previous finished runs (at least %d are needed).", workload.MinBaselineRuns)).
		Default(strconv.Itoa(w.BaselineRuns)).IntVar(&w.BaselineRuns)
}

// Resolve checks the flags and returns the key options.
func (w WorkloadFlags) Resolve() (workloadkey.Options, error) {
	if w.BaselineRuns != 0 && w.BaselineRuns < workload.MinBaselineRuns { // 0: the default
		return workloadkey.Options{}, fmt.Errorf("--workload.baseline-runs=%d: want at least %d", w.BaselineRuns, workload.MinBaselineRuns)
	}
	k := w.Key
	k.Verbatim = !w.Normalize
	return k, nil
}

// explicitBool is a boolean flag that takes its value, as
// --workload.normalize=false: kingpin's own boolean flags take none (their
// negation is --no-name) and would read "=false" as an argument.
type explicitBool struct{ b *bool }

func (v explicitBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, not %q", s)
	}
	*v.b = b
	return nil
}

func (v explicitBool) String() string {
	if v.b == nil {
		return "false"
	}
	return strconv.FormatBool(*v.b)
}
