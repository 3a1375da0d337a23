//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/table"

	"github.com/sparkglance/sparkglance/alerts"
)

// FleetUID is the "Spark fleet" dashboard's uid.
const FleetUID = "sparkglance-fleet"

// withName adds app_name to a series that only carries app_id (the node
// agent's energy and blocking metrics).
var withName = ` * on (app_id) group_left (app_name) max by (app_id, app_name) (spark_app_info` + sel() + `)`

// Fleet builds "Spark fleet": every application in one table sorted by
// wasted core-hours, plus how many are followed, per event-log shard too.
func Fleet() (dashboard.Dashboard, error) {
	var n ids
	b := dashboard.NewDashboardBuilder("Spark fleet").
		Uid(FleetUID).
		Description("Every Spark application sparkglance follows, sorted by waste: core-hours made available but not used by task CPU.").
		Tags([]string{"spark", "sparkglance"}).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Refresh("30s").Time("now-6h", "now").Timezone(common.TimeZoneBrowser).
		Editable()
	b = variables(b, false)

	appsTable := table.NewPanelBuilder().Id(n.id()).Footer(noFooter()).Title("Applications, by waste").
		Description("Efficiency = task CPU time / available core time over the application's life. Wasted core-hours = available minus used. Link a row to the application dashboard with its app_id.").
		Datasource(datasource).Height(14).Span(24).
		WithTarget(instant("A", `sum by (app_id, app_name) (spark_executor_task_time_seconds_total`+sel(`category="cpu"`)+`) / sum by (app_id, app_name) (spark_app_core_seconds_total`+sel()+`)`)).
		WithTarget(instant("B", `sum by (app_id, app_name) (spark_app_core_seconds_total`+sel()+`) / 3600`)).
		WithTarget(instant("C", ofSelected(alerts.AppWastedCoreSeconds+` / 3600`))).
		WithTarget(instant("D", alerts.AppEnergyWh+withName)).
		WithTarget(instant("E", `sum by (app_id, app_name) (spark_executor_spill_bytes_total`+sel(`medium="disk"`)+`)`)).
		WithTarget(instant("F", `avg by (app_id) (spark_executor_blocked_ratio`+sel()+`)`+withName)).
		WithTarget(instant("G", `count by (app_id, app_name) (spark_app_finding`+sel()+` == 1)`)).
		WithTransformation(dashboard.DataTransformerConfig{Id: "merge", Options: map[string]any{}}).
		WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
			"excludeByName": map[string]bool{"Time": true},
			"renameByName": map[string]string{
				"Value #A": "efficiency", "Value #B": "core-hours", "Value #C": "wasted core-hours",
				"Value #D": "energy (Wh)", "Value #E": "spill to disk", "Value #F": "blocked ratio", "Value #G": "findings",
			},
		}}).
		SortBy([]cog.Builder[common.TableSortByFieldState]{common.NewTableSortByFieldStateBuilder().DisplayName("wasted core-hours").Desc(true)}).
		OverrideByName("efficiency", []dashboard.DynamicConfigValue{{Id: "unit", Value: "percentunit"}}).
		OverrideByName("blocked ratio", []dashboard.DynamicConfigValue{{Id: "unit", Value: "percentunit"}}).
		OverrideByName("spill to disk", []dashboard.DynamicConfigValue{{Id: "unit", Value: "bytes"}}).
		OverrideByName("energy (Wh)", []dashboard.DynamicConfigValue{{Id: "unit", Value: "watth"}})

	b = b.WithPanel(appsTable).
		WithPanel(series(&n, "Applications followed", "short", 12,
			query("A", `sum by (state) (sparkglance_eventlog_apps`+sel()+`)`, "{{state}}"))).
		WithPanel(series(&n, "Efficiency of running applications", "percentunit", 12,
			query("A", ofSelected(alerts.AppCPUEfficiency), "{{app_name}}"))).
		// Sharded exporters (--eventlog.total-shards): each shard's load
		// side by side; one far above the others is what
		// SparkglanceShardBehind fires on.
		WithPanel(series(&n, "Event-log shards: applications followed and backlog per shard", "short", 24,
			query("A", `sum by (instance) (sparkglance_eventlog_apps`+sel()+`) * on (instance) group_left (shard, total_shards) sparkglance_eventlog_shard_info`+sel(), "{{instance}} shard {{shard}}/{{total_shards}}: followed"),
			query("B", `sparkglance_eventlog_backlog_logs`+sel()+` * on (instance) group_left (shard, total_shards) sparkglance_eventlog_shard_info`+sel(), "{{instance}} shard {{shard}}/{{total_shards}}: not yet read")))
	return b.Build()
}
