//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/table"
)

// WorkloadsUID is the "Spark workloads" dashboard's uid.
const WorkloadsUID = "sparkglance-workloads"

// lastRun is the latest finished run's value of measure, per workload.
func lastRun(measure string) string {
	return `max by (workload) (spark_workload_last_run_value` + sel(`measure="`+measure+`"`) + `)`
}

// Workloads builds "Spark workloads": every recurring workload against its
// own baseline, the regressed ones first, then the trend of each
// workload's runs and their cost and waste.
func Workloads() (dashboard.Dashboard, error) {
	var n ids
	b := dashboard.NewDashboardBuilder("Spark workloads").
		Uid(WorkloadsUID).
		Description("Recurring Spark jobs (runs grouped by spark.sparkglance.workload or the normalised application name): each workload's latest finished run against the median of its previous runs, the regressed ones first, with the cost and waste of each.").
		Tags([]string{"spark", "sparkglance"}).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Refresh("1m").Time("now-7d", "now").Timezone(common.TimeZoneBrowser).
		Editable()
	b = variables(b, false)

	workloads := table.NewPanelBuilder().Id(n.id()).Footer(noFooter()).Title("Workloads, regressed first").
		Description("The latest finished run of each workload over its baseline (the median of its previous finished runs). Regressed measures: how many measures are beyond the workload_regression thresholds (SparkWorkloadRegressed fires on them). /workloads of the exporter explains why.").
		Datasource(datasource).Height(12).Span(24).
		WithTarget(instant("A", `sum by (workload) (spark_workload_regression`+sel()+`)`)).
		WithTarget(instant("B", `max by (workload) (spark_workload_last_run_ratio`+sel(`measure="wall_time"`)+`)`)).
		WithTarget(instant("C", lastRun("wall_time"))).
		WithTarget(instant("D", lastRun("efficiency"))).
		WithTarget(instant("E", lastRun("cost"))).
		WithTarget(instant("F", lastRun("wasted_core_hours"))).
		WithTarget(instant("G", `sum by (workload) (spark_workload_runs_total`+sel()+`)`)).
		WithTransformation(dashboard.DataTransformerConfig{Id: "merge", Options: map[string]any{}}).
		WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
			"excludeByName": map[string]bool{"Time": true},
			"renameByName": map[string]string{
				"Value #A": "regressed measures", "Value #B": "wall time / baseline", "Value #C": "wall time",
				"Value #D": "efficiency", "Value #E": "cost", "Value #F": "wasted core-hours", "Value #G": "runs seen",
			},
		}}).
		SortBy([]cog.Builder[common.TableSortByFieldState]{common.NewTableSortByFieldStateBuilder().DisplayName("regressed measures").Desc(true)}).
		OverrideByName("wall time", []dashboard.DynamicConfigValue{{Id: "unit", Value: "s"}}).
		OverrideByName("efficiency", []dashboard.DynamicConfigValue{{Id: "unit", Value: "percentunit"}}).
		OverrideByName("wall time / baseline", []dashboard.DynamicConfigValue{{Id: "unit", Value: "x"}, {Id: "decimals", Value: 2}})

	b = b.WithPanel(workloads).
		WithPanel(series(&n, "Wall time of the latest run over its baseline", "x", 12,
			query("A", `max by (workload) (spark_workload_last_run_ratio`+sel(`measure="wall_time"`)+`)`, "{{workload}}"))).
		WithPanel(series(&n, "Efficiency of the latest run", "percentunit", 12,
			query("A", lastRun("efficiency"), "{{workload}}"))).
		WithPanel(series(&n, "Wall time of the latest run", "s", 12,
			query("A", lastRun("wall_time"), "{{workload}}"),
			query("B", `max by (workload) (spark_workload_baseline`+sel(`measure="wall_time"`)+`)`, "{{workload}} baseline"))).
		WithPanel(series(&n, "Core-hours of the latest run", "short", 12,
			query("A", lastRun("core_hours"), "{{workload}}"))).
		WithPanel(series(&n, "Cost of the latest run, by workload", "short", 12,
			query("A", lastRun("cost"), "{{workload}}"))).
		WithPanel(series(&n, "Wasted core-hours of the latest run, by workload", "short", 12,
			query("A", lastRun("wasted_core_hours"), "{{workload}}"))).
		WithPanel(series(&n, "Finished runs per day, by status", "short", 24,
			query("A", `sum by (status) (increase(spark_workload_runs_total`+sel()+`[1d]))`, "{{status}}")))
	return b.Build()
}
