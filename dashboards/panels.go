// Package dashboards generates sparkglance's Grafana dashboards from Go
// code (grafana-foundation-sdk), so the committed JSON can be checked for
// staleness, its PromQL validated, and its metric names held to the
// exporter's documented contract.
package dashboards

//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

// Variables every dashboard query may use; tests substitute them.
const (
	VarDatasource = "datasource"
	VarAppName    = "app_name"
	VarAppID      = "app_id"
)

// datasource is the Prometheus data source chosen by the $datasource variable.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${" + VarDatasource + "}")}

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

// variables: the data source, then the application by name and by id.
func variables(b *dashboard.DashboardBuilder, withApp bool) *dashboard.DashboardBuilder {
	b = b.WithVariable(dashboard.NewDatasourceVariableBuilder(VarDatasource).
		Label("Data source").Type("prometheus"))
	if !withApp {
		return b
	}
	return b.
		WithVariable(dashboard.NewQueryVariableBuilder(VarAppName).Label("Application").
			Datasource(datasource).
			Query(dashboard.StringOrMap{String: cog.ToPtr("label_values(spark_app_info, app_name)")}).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Sort(dashboard.VariableSortAlphabeticalAsc)).
		WithVariable(dashboard.NewQueryVariableBuilder(VarAppID).Label("Application id").
			Datasource(datasource).
			Query(dashboard.StringOrMap{String: cog.ToPtr(`label_values(spark_app_info{app_name="$app_name"}, app_id)`)}).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Sort(dashboard.VariableSortAlphabeticalDesc))
}

// prometheusTarget is a Prometheus query of a panel.
type prometheusTarget = prometheus.DataqueryBuilder

// noFooter: tables need an explicit footer (the reducer list is required).
func noFooter() *common.TableFooterOptionsBuilder {
	return common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{})
}
