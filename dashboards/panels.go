// Package dashboards generates sparkglance's Grafana dashboards from Go
// code (grafana-foundation-sdk), so the committed JSON can be checked for
// staleness, its PromQL validated, and its metric names held to the
// exporter's documented contract.
package dashboards

//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

import (
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"

	"github.com/sparkglance/sparkglance/alerts"
)

// Variables every dashboard query may use; tests substitute them.
const (
	// VarDatasource is the Prometheus data source. It is named as the
	// data-source input of a grafana.com import (see forImport), whose
	// importer replaces ${DS_PROMETHEUS} by the data source picked; file
	// provisioning, which knows no inputs, resolves it as this variable.
	VarDatasource = "DS_PROMETHEUS"
	VarCluster    = "cluster"
	VarJob        = "job"
	VarInstance   = "instance"
	VarAppName    = "app_name"
	VarAppID      = "app_id"
)

// datasource is the Prometheus data source chosen by the $DS_PROMETHEUS variable.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${" + VarDatasource + "}")}

// filters select the cluster, scrape job and instance chosen in the
// dashboard's variables. Their "All" value is the regular expression .*,
// which also matches series without the label (a Prometheus whose targets
// carry no cluster label).
const filters = `cluster=~"$cluster", job=~"$job", instance=~"$instance"`

// sel is a selector's label matchers: the dashboard's filters, then
// matchers. Every metric a panel reads goes through it.
func sel(matchers ...string) string {
	return "{" + strings.Join(append([]string{filters}, matchers...), ", ") + "}"
}

// ofSelected keeps the per-application series of expr (recording rules,
// which aggregate the filter labels away) whose application the filters
// select.
func ofSelected(expr string, matchers ...string) string {
	return expr + " and on (app_id) spark_app_info" + sel(matchers...)
}

// ids hands out panel ids in layout order: Grafana fills missing ids on
// load, but explicit ones keep the generated JSON stable.
type ids struct{ next uint32 }

func (i *ids) id() uint32 { i.next++; return i.next }

// query is a time-series Prometheus target.
func query(refID, expr, legend string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().RefId(refID).Expr(expr).LegendFormat(legend).Range()
}

// instant is a table-format instant Prometheus target.
func instant(refID, expr string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().RefId(refID).Expr(expr).
		Instant().Format(prometheus.PromQueryFormatTable)
}

func legendBottom() *common.VizLegendOptionsBuilder {
	return common.NewVizLegendOptionsBuilder().ShowLegend(true).
		DisplayMode(common.LegendDisplayModeList).Placement(common.LegendPlacementBottom)
}

func tooltipAll() *common.VizTooltipOptionsBuilder {
	return common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti).Sort(common.SortOrderDescending)
}

func fixedColor(c string) dashboard.DynamicConfigValue {
	return dashboard.DynamicConfigValue{Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": c}}
}

func displayName(n string) dashboard.DynamicConfigValue {
	return dashboard.DynamicConfigValue{Id: "displayName", Value: n}
}

func continuous(mode dashboard.FieldColorModeId) *dashboard.FieldColorBuilder {
	return dashboard.NewFieldColorBuilder().Mode(mode)
}

// allVariable is a query variable with several values and "All", whose
// value is .* so that it also matches series without the label.
func allVariable(name, label, query string) *dashboard.QueryVariableBuilder {
	return dashboard.NewQueryVariableBuilder(name).Label(label).Datasource(datasource).
		Query(dashboard.StringOrMap{String: cog.ToPtr(query)}).
		Multi(true).IncludeAll(true).AllValue(".*").
		Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: cog.ToPtr("All")},
			Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("$__all")}}).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Sort(dashboard.VariableSortAlphabeticalAsc)
}

// presence is the family the job and instance variables list: one series
// per running sparkglance, on a scraping Prometheus and on one fed by the
// OTLP push alike (which has no up series: nothing scrapes; under the
// default translation it arrives as sparkglance_build_info_ratio and
// alerts/sparkglance-otlp-rules.yml records it back).
const presence = "sparkglance_build_info"

// variables: the data source; the cluster (optional: Prometheus may have no
// such label), scrape job and instance, which every query filters by; then
// the application by name and by id.
func variables(b *dashboard.DashboardBuilder, withApp bool) *dashboard.DashboardBuilder {
	b = b.WithVariable(dashboard.NewDatasourceVariableBuilder(VarDatasource).
		Label("Data source").Type("prometheus")).
		WithVariable(allVariable(VarCluster, "Cluster", "label_values(spark_app_info, cluster)")).
		WithVariable(allVariable(VarJob, "Job",
			`label_values(`+presence+`{`+alerts.JobSelector+`, cluster=~"$cluster"}, job)`)).
		WithVariable(allVariable(VarInstance, "Instance",
			`label_values(`+presence+`{`+alerts.JobSelector+`, cluster=~"$cluster", job=~"$job"}, instance)`))
	if !withApp {
		return b
	}
	return b.
		WithVariable(dashboard.NewQueryVariableBuilder(VarAppName).Label("Application").
			Datasource(datasource).
			Query(dashboard.StringOrMap{String: cog.ToPtr("label_values(spark_app_info" + sel() + ", app_name)")}).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Sort(dashboard.VariableSortAlphabeticalAsc)).
		WithVariable(dashboard.NewQueryVariableBuilder(VarAppID).Label("Application id").
			Datasource(datasource).
			Query(dashboard.StringOrMap{String: cog.ToPtr("label_values(spark_app_info" + sel(`app_name="$app_name"`) + ", app_id)")}).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Sort(dashboard.VariableSortAlphabeticalDesc))
}

// prometheusTarget is a Prometheus query of a panel.
type prometheusTarget = prometheus.DataqueryBuilder

// noFooter: tables need an explicit footer (the reducer list is required).
func noFooter() *common.TableFooterOptionsBuilder {
	return common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{})
}
