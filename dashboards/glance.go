//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/statetimeline"
	"github.com/grafana/grafana-foundation-sdk/go/statushistory"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	"github.com/sparkglance/sparkglance/alerts"
)

// GlanceUID is the "Spark application at a glance" dashboard's uid.
const GlanceUID = "sparkglance-app"

// app selects the application chosen in the dashboard's variables.
const app = `app_id="$app_id"`

// Glance builds "Spark application at a glance": the three synced charts
// on one time axis with a shared crosshair, then stats, energy, blocking,
// Spark's own metrics, SQL operators, findings and exporter health.
func Glance() (dashboard.Dashboard, error) {
	var n ids
	b := dashboard.NewDashboardBuilder("Spark application at a glance").
		Uid(GlanceUID).
		Description("One Spark application from sparkglance: where its CPU time goes, which executors spill, which stages run, and what it costs.").
		Tags([]string{"spark", "sparkglance"}).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Refresh("10s").Time("now-30m", "now").Timezone(common.TimeZoneBrowser).
		Editable()
	b = variables(b, true)

	b = b.WithRow(dashboard.NewRowBuilder("Where the time goes").Id(n.id())).
		WithPanel(cpuShare(&n)).
		WithPanel(spillIntensity(&n)).
		WithPanel(stageTimeline(&n))

	b = b.WithRow(dashboard.NewRowBuilder("Now").Id(n.id())).
		WithPanel(statPanel(&n, "Cores", "short", `spark_app_cores`+sel(app))).
		WithPanel(statPanel(&n, "Active tasks", "short", `spark_app_active_tasks`+sel(app))).
		WithPanel(statPanel(&n, "Efficiency now", "percentunit", `spark_app_interval_efficiency`+sel(app))).
		WithPanel(statPanel(&n, "Energy so far", "watth", ofSelected(alerts.AppEnergyWh+`{`+app+`}`, app)))

	b = b.WithRow(dashboard.NewRowBuilder("Energy").Id(n.id())).
		WithPanel(series(&n, "Power per executor", "watt", 8,
			query("A", `sum by (executor_id) (rate(spark_executor_energy_joules_total`+sel(app)+`[$__rate_interval]))`, "executor {{executor_id}}"))).
		WithPanel(series(&n, "Energy of the application", "watth", 8,
			query("A", ofSelected(alerts.AppEnergyWh+`{`+app+`}`, app), "sparkglance (all nodes)"),
			query("B", `spark_plugin_energy_total_wh`+sel(app), "ccspark plugin"),
			query("C", `sum(spark_app_energy_wh_total`+sel(app)+`)`, "event log (CPU time × watts per core)"))).
		WithPanel(table.NewPanelBuilder().Id(n.id()).Footer(noFooter()).Title("CPU TDP and its source").
			Description("The TDP the node agent charges per node: from --energy.tdp-watts (flag), the CPU power table (table) or the 85 W default.").
			Datasource(datasource).Height(8).Span(8).Unit("watt").
			WithTarget(instant("A", `spark_node_cpu_tdp_watts`+sel())).
			WithTransformation(organize(map[string]bool{"Time": true, "__name__": true, "job": true})))

	b = b.WithRow(dashboard.NewRowBuilder("Blocking").Id(n.id())).
		WithPanel(series(&n, "Blocked ratio per executor", "percentunit", 12,
			query("A", `spark_executor_blocked_ratio`+sel(app), "executor {{executor_id}}"))).
		WithPanel(stacked(series(&n, "Task-thread samples by reason", "percentunit", 12,
			query("A", `sum by (executor_id, state) (rate(spark_thread_samples_total`+sel(app, `state!="running"`)+`[$__rate_interval]))
/ on (executor_id) group_left ()
sum by (executor_id) (rate(spark_thread_samples_total`+sel(app)+`[$__rate_interval]))`, "executor {{executor_id}} {{state}}"))))

	b = b.WithRow(dashboard.NewRowBuilder("Spark metrics endpoint").Id(n.id())).
		WithPanel(series(&n, "JVM heap", "bytes", 12,
			query("A", `spark_metrics_executor_metrics_jvm_heap_memory_bytes`+sel(app), "executor {{executor_id}}"))).
		WithPanel(series(&n, "GC time share", "percentunit", 12,
			query("A", `rate(spark_metrics_executor_metrics_total_gc_time_seconds_total`+sel(app)+`[$__rate_interval])`, "executor {{executor_id}}")))

	// Per-stage series are bounded by --eventlog.max-stages (older stages
	// summed as stage_id="other"), so topk over them stays cheap.
	b = b.WithRow(dashboard.NewRowBuilder("Stages").Id(n.id())).
		WithPanel(series(&n, "Top stages by task time", "s", 6,
			query("A", `topk(10, sum by (stage_id) (increase(spark_stage_task_time_seconds_total`+sel(app, `category="run"`)+`[$__range])))`, "stage {{stage_id}}"))).
		WithPanel(series(&n, "Top stages by spill", "bytes", 6,
			query("A", `topk(10, sum by (stage_id) (increase(spark_stage_spill_bytes_total`+sel(app)+`[$__range])))`, "stage {{stage_id}}"))).
		WithPanel(series(&n, "Top stages by shuffle", "bytes", 6,
			query("A", `topk(10, sum by (stage_id) (increase(spark_stage_shuffle_read_bytes_total`+sel(app)+`[$__range]) + increase(spark_stage_shuffle_write_bytes_total`+sel(app)+`[$__range])))`, "stage {{stage_id}}"))).
		WithPanel(series(&n, "Top stages by energy", "joule", 6,
			query("A", `topk(10, sum by (stage_id) (increase(spark_stage_energy_joules_total`+sel(app)+`[$__range])))`, "stage {{stage_id}}")))

	b = b.WithRow(dashboard.NewRowBuilder("SQL operators").Id(n.id())).
		WithPanel(series(&n, "Top operators by time", "percentunit", 8,
			query("A", `topk(10, sum by (operator) (rate(spark_sql_operator_time_seconds_total`+sel(app)+`[$__rate_interval])))`, "{{operator}}"))).
		WithPanel(series(&n, "Top operators by spill", "Bps", 8,
			query("A", `topk(10, sum by (operator) (rate(spark_sql_operator_spill_bytes_total`+sel(app)+`[$__rate_interval])))`, "{{operator}}"))).
		WithPanel(series(&n, "Top operators by peak memory", "bytes", 8,
			query("A", `topk(10, max by (operator) (spark_sql_operator_peak_memory_bytes`+sel(app)+`))`, "{{operator}}")))

	b = streamingRow(b, &n)

	b = b.WithRow(dashboard.NewRowBuilder("Findings").Id(n.id())).
		WithPanel(table.NewPanelBuilder().Id(n.id()).Footer(noFooter()).Title("Active findings").
			Description("What the analysis found in this application; docs/runbook.md says what to change.").
			Datasource(datasource).Height(8).Span(24).
			WithTarget(instant("A", `spark_app_finding`+sel(app)+` == 1`)).
			WithTransformation(organize(map[string]bool{"Time": true, "Value": true, "__name__": true, "job": true, "instance": true})))

	b = b.WithRow(dashboard.NewRowBuilder("Exporter health").Id(n.id())).
		WithPanel(series(&n, "Collector success", "short", 6,
			query("A", `min by (collector) (sparkglance_scrape_collector_success`+sel()+`)`, "{{collector}}"))).
		WithPanel(series(&n, "Collector duration", "s", 6,
			query("A", `max by (collector) (sparkglance_scrape_collector_duration_seconds`+sel()+`)`, "{{collector}}"))).
		WithPanel(series(&n, "Event-log lag", "s", 6,
			query("A", `sparkglance_eventlog_lag_seconds`+sel(app), "{{app_name}}"))).
		WithPanel(series(&n, "Applications followed", "short", 6,
			query("A", `sum by (state) (sparkglance_eventlog_apps`+sel()+`)`, "{{state}}"))).
		WithPanel(series(&n, "Event-log errors", "short", 12,
			query("A", `sum by (reason) (increase(sparkglance_eventlog_errors_total`+sel()+`[$__rate_interval]))`, "{{reason}}"))).
		WithPanel(series(&n, "Spark targets up", "short", 12,
			query("A", `spark_target_up`+sel(), "{{target}}")))

	return b.Build()
}

// cpuShare is the top chart: per interval, the share of available core
// time by category as stacked bars, with the efficiency line.
func cpuShare(n *ids) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().Id(n.id()).
		Title("CPU share by category, per interval").
		Description("Share of the available core time spent in task CPU work, shuffle, (de)serialization and GC over each step: the ratio of the settled counters' increases, exact over any step as every settled interval is counted once (live, and for applications loaded with sparkglance backfill). The line is the CPU efficiency over the step.").
		Datasource(datasource).Height(9).Span(24).Interval("10s").
		Unit("percentunit").Min(0).Max(1).
		DrawStyle(common.GraphDrawStyleBars).FillOpacity(80).LineWidth(1).
		Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal).Group("A")).
		Legend(legendBottom()).Tooltip(tooltipAll()).
		WithTarget(query("A", `sum by (category) (increase(spark_app_settled_task_seconds_total`+sel(app)+`[$__rate_interval]))
/ on () group_left ()
sum(increase(spark_app_settled_core_seconds_total`+sel(app)+`[$__rate_interval]))`, "{{category}}")).
		WithTarget(query("B", `sum(increase(spark_app_settled_task_seconds_total`+sel(app, `category="cpu"`)+`[$__rate_interval]))
/
sum(increase(spark_app_settled_core_seconds_total`+sel(app)+`[$__rate_interval]))`, "efficiency")).
		OverrideByName("cpu", []dashboard.DynamicConfigValue{fixedColor("green"), displayName("task work")}).
		OverrideByName("shuffle", []dashboard.DynamicConfigValue{fixedColor("red")}).
		OverrideByName("serde", []dashboard.DynamicConfigValue{fixedColor("purple"), displayName("(de)serialization")}).
		OverrideByName("gc", []dashboard.DynamicConfigValue{fixedColor("orange")}).
		OverrideByName("efficiency", []dashboard.DynamicConfigValue{
			fixedColor("blue"),
			{Id: "custom.drawStyle", Value: "line"},
			{Id: "custom.lineWidth", Value: 2},
			{Id: "custom.fillOpacity", Value: 0},
			{Id: "custom.stacking", Value: map[string]any{"mode": "none", "group": "A"}},
		})
}

// spillIntensity is the middle chart: one row per executor, coloured by
// the bytes it spilled in the interval.
func spillIntensity(n *ids) *statushistory.PanelBuilder {
	return statushistory.NewPanelBuilder().Id(n.id()).
		Title("Spill per executor, per interval").
		Description("Bytes each executor spilled (memory size) per second over each step, from the settled spill counter (every settled interval counted once): a row that burns alone is a skewed executor, all rows warm means executor memory is too small.").
		Datasource(datasource).Height(8).Span(24).Interval("10s").
		Unit("Bps").Min(0).ColorScheme(continuous(dashboard.FieldColorModeIdContinuousYlRd)).
		ShowValue(common.VisibilityModeNever).RowHeight(0.9).
		Legend(legendBottom().ShowLegend(false)).Tooltip(tooltipAll()).
		WithTarget(query("A", `sum by (executor_id) (rate(spark_executor_settled_spill_bytes_total`+sel(app, `medium="memory"`)+`[$__rate_interval]))`, "executor {{executor_id}}"))
}

// stageTimeline is the bottom chart: one lane per stage while it runs.
func stageTimeline(n *ids) *statetimeline.PanelBuilder {
	running := dashboard.ValueMapping{ValueMap: &dashboard.ValueMap{
		Type:    dashboard.MappingTypeValueToText,
		Options: map[string]dashboard.ValueMappingResult{"1": {Text: cog.ToPtr("running"), Color: cog.ToPtr("blue")}},
	}}
	return statetimeline.NewPanelBuilder().Id(n.id()).
		Title("Stage timeline").
		Description("One lane per stage, filled while an attempt of the stage runs (backfilled history ends a lane with a 0 sample, which the query leaves out).").
		Datasource(datasource).Height(8).Span(24).
		ShowValue(common.VisibilityModeNever).MergeValues(true).RowHeight(0.8).
		Mappings([]dashboard.ValueMapping{running}).
		Legend(legendBottom().ShowLegend(false)).Tooltip(tooltipAll()).
		WithTarget(query("A", `max by (stage_id) (spark_stage_active`+sel(app)+` == 1)`, "stage {{stage_id}}"))
}

func statPanel(n *ids, title, unit, expr string) *stat.PanelBuilder {
	return stat.NewPanelBuilder().Id(n.id()).Title(title).Datasource(datasource).
		Height(4).Span(6).Unit(unit).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		WithTarget(query("A", expr, title))
}

func series(n *ids, title, unit string, span uint32, targets ...*prometheusTarget) *timeseries.PanelBuilder {
	p := timeseries.NewPanelBuilder().Id(n.id()).Title(title).Datasource(datasource).
		Height(8).Span(span).Unit(unit).Legend(legendBottom()).Tooltip(tooltipAll())
	for _, t := range targets {
		p = p.WithTarget(t)
	}
	return p
}

func stacked(p *timeseries.PanelBuilder) *timeseries.PanelBuilder {
	return p.Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal)).FillOpacity(60)
}

// organize hides technical columns of instant table queries.
func organize(hide map[string]bool) dashboard.DataTransformerConfig {
	return dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{"excludeByName": hide}}
}
