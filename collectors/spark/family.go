package spark

import (
	"regexp"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// family is how one metrics-system sample is exposed.
type family struct {
	name      string
	help      string
	valueType prometheus.ValueType // gauge or counter; summaries use summary
	summary   bool
	scale     float64  // multiplies values (unit normalisation)
	labels    []string // extra labels after app_id, app_name, executor_id
	values    []string
	appOnly   bool // no executor_id label (the ccspark gauge)
}

// ccsparkKey is the ccspark plugin's driver gauge (see [sm.CCSparkKey]).
const ccsparkKey = sm.CCSparkKey

// labelRule moves a variable part of a key (a listener class, a queue, a
// file-system scheme, a streaming query) into a label, so that the metric
// name stays the same for every value.
type labelRule struct {
	pattern *regexp.Regexp
	base    string // replacement template for the key
	label   string // label taking submatch 1
}

var labelRules = []labelRule{
	{regexp.MustCompile(`^LiveListenerBus_listenerProcessingTime_(.+)$`), "LiveListenerBus_listenerProcessingTime", "listener"},
	{regexp.MustCompile(`^LiveListenerBus_queue_([A-Za-z0-9]+)_(.+)$`), "LiveListenerBus_queue_$2", "queue"},
	{regexp.MustCompile(`^executor_filesystem_([A-Za-z0-9]+)_(.+)$`), "executor_filesystem_$2", "scheme"},
	{regexp.MustCompile(`^spark_streaming_(.+)_(eventTime_watermark|inputRate_total|latency|processingRate_total|states_rowsTotal|states_usedBytes)$`),
		"streaming_$2", "query"},
}

// Units Spark's metric names do not say (facts 1-2, docs/monitoring.md):
// task-metric counters and JVM CPU in nanoseconds or milliseconds.
var (
	nanosecondKeys  = setOf("executor_cpuTime", "executor_deserializeCpuTime", "executor_shuffleWriteTime", "JVMCPU_jvmCpuTime")
	millisecondKeys = setOf("executor_runTime", "executor_jvmGCTime", "executor_deserializeTime",
		"executor_resultSerializationTime", "executor_shuffleFetchWaitTime", "executor_shuffleRemoteReqsDuration",
		"executor_shuffleMergedRemoteReqsDuration", "ExecutorMetrics_MinorGCTime", "ExecutorMetrics_MajorGCTime",
		"ExecutorMetrics_TotalGCTime", "ExecutorMetrics_ConcurrentGCTime", "CodeGenerator_compilationTime")
	byteKeys = setOf("CodeGenerator_generatedClassSize", "CodeGenerator_generatedMethodSize", "CodeGenerator_sourceCodeSize")
	// monotonicGauges are Dropwizard gauges that only grow during a
	// process's life: exposed as counters.
	monotonicGauges = setOf("JVMCPU_jvmCpuTime", "ExecutorMetrics_MinorGCTime", "ExecutorMetrics_MajorGCTime",
		"ExecutorMetrics_TotalGCTime", "ExecutorMetrics_ConcurrentGCTime", "ExecutorMetrics_MinorGCCount",
		"ExecutorMetrics_MajorGCCount", "ExecutorMetrics_ConcurrentGCCount")
)

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// describe names a sample. ok is false for samples that are not exposed:
// the standalone master's per-application keys, which embed an
// application name and start time.
func describe(s sample) (f family, ok bool) {
	if s.namespace == "" && strings.HasPrefix(s.key, "application_") {
		return family{}, false
	}
	if s.key == ccsparkKey && s.kind == kindGauge {
		return family{
			name: pluginEnergy.Name, help: pluginEnergy.Help,
			valueType: pluginEnergy.ValueType(), scale: 1, appOnly: true,
		}, true
	}
	key, helpKey := s.key, s.key
	for _, r := range labelRules {
		if m := r.pattern.FindStringSubmatchIndex(key); m != nil {
			f.labels = []string{r.label}
			f.values = []string{labelFromRaw(s, m[2], m[3])}
			helpKey = key[:m[2]] + "<" + r.label + ">" + key[m[3]:]
			key = string(r.pattern.ExpandString(nil, r.base, key, m))
			break
		}
	}
	kind := s.kind
	if kind == kindGauge && monotonicGauges[key] {
		kind = kindCounter
	}
	f.scale = 1
	unit, unitNote := "", ""
	switch {
	case strings.HasSuffix(key, "_MB"):
		key = strings.TrimSuffix(key, "_MB")
		f.scale, unit, unitNote = 1<<20, "bytes", "; MiB converted to bytes"
	case nanosecondKeys[key]:
		f.scale, unit, unitNote = 1e-9, "seconds", "; nanoseconds converted to seconds"
	case millisecondKeys[key], s.kind == kindTimer, strings.HasSuffix(key, "_ms"):
		key = strings.TrimSuffix(key, "_ms")
		f.scale, unit, unitNote = 1e-3, "seconds", "; milliseconds converted to seconds"
	case byteKeys[key], strings.HasPrefix(key, "ExecutorMetrics_") && strings.HasSuffix(key, "Memory"):
		unit = "bytes"
	}
	name := "spark_metrics_" + snakeCase(key)
	if unit != "" && !strings.HasSuffix(name, "_"+unit) {
		name += "_" + unit
	}
	switch kind {
	case kindCounter, kindMeter:
		f.valueType = prometheus.CounterValue
		name = strings.TrimSuffix(name, "_count") + "_total"
	case kindHistogram, kindTimer:
		f.summary = true
		name = gaugeSafe(name)
		unitNote += "; quantiles from Dropwizard's decaying reservoir, _sum estimated as mean × count"
	default:
		f.valueType = prometheus.GaugeValue
		name = gaugeSafe(name)
	}
	f.name = name
	f.help = "Spark metrics system " + s.kind.String() + " " + helpKey + unitNote + "."
	return f, true
}

// labelFromRaw takes a label value from the unsanitized key when there is
// one (a listener "org.apache.spark.HeartbeatReceiver" keeps its dots);
// sanitizing maps ASCII byte for byte, so the offsets agree.
func labelFromRaw(s sample, from, to int) string {
	if len(s.raw) == len(s.key) {
		return s.raw[from:to]
	}
	return s.key[from:to]
}
