//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

package dashboards_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/alerts/promqltest"
	"github.com/sparkglance/sparkglance/dashboards"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// CI fails when the committed JSON differs from what the code generates.
func TestCommittedJSONIsUpToDate(t *testing.T) {
	for _, f := range generated(t) {
		got, err := os.ReadFile(f.Name)
		if err != nil {
			t.Fatalf("%s: %v (run `make dashboards`)", f.Name, err)
		}
		if !bytes.Equal(got, f.JSON) {
			t.Errorf("%s is stale: run `make dashboards` and commit the result", f.Name)
		}
	}
}

// The SDK's strict decoder rejects unknown or missing fields: it is the
// closest thing to Grafana's own validation available here.
func TestStrictlyValid(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	for _, f := range generated(t) {
		var d dashboard.Dashboard
		if err := strictErr(d.UnmarshalJSONStrict(withoutImportBlocks(t, f.JSON))); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	// The validator does catch damage.
	var d dashboard.Dashboard
	bad := []byte(`{"title":"x","panels":[],"bogusTop":1,"templating":{},"annotations":{},"schemaVersion":"42"}`)
	if err := strictErr(d.UnmarshalJSONStrict(bad)); err == nil {
		t.Error("strict decoding accepted an unknown field")
	}
}

// withoutImportBlocks drops __inputs and __requires, which only the import
// reads: they are no part of the dashboard model the SDK decodes.
func withoutImportBlocks(t *testing.T, b []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "__inputs")
	delete(m, "__requires")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// UnmarshalJSONStrict returns an empty cog.BuildErrors (non-nil) on success.
func strictErr(err error) error {
	var be cog.BuildErrors
	if errors.As(err, &be) && len(be) == 0 {
		return nil
	}
	return err
}

type panel struct {
	Type    string `json:"type"`
	Title   string `json:"title"`
	GridPos struct {
		W, X, Y int
	} `json:"gridPos"`
	Datasource *struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
	FieldConfig struct {
		Overrides []struct {
			Matcher struct {
				Options string `json:"options"`
			} `json:"matcher"`
			Properties []struct {
				ID    string `json:"id"`
				Value any    `json:"value"`
			} `json:"properties"`
		} `json:"overrides"`
	} `json:"fieldConfig"`
}

type board struct {
	Inputs []struct {
		Name, Type, PluginID string
	} `json:"__inputs"`
	Requires []struct {
		Type, ID string
	} `json:"__requires"`
	UID          string  `json:"uid"`
	GraphTooltip int     `json:"graphTooltip"`
	Panels       []panel `json:"panels"`
	Templating   struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Query      any    `json:"query"`
			IncludeAll bool   `json:"includeAll"`
			Multi      bool   `json:"multi"`
			AllValue   string `json:"allValue"`
			Datasource *struct {
				UID string `json:"uid"`
			} `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
}

// The first row holds the three charts, full width, one above the other,
// on a shared crosshair: the same time axis for all three.
func TestGlanceHasTheThreeSyncedCharts(t *testing.T) {
	b := decode(t, "spark-app-at-a-glance.json")
	if b.GraphTooltip != int(dashboard.DashboardCursorSyncCrosshair) {
		t.Errorf("graphTooltip = %d, want shared crosshair", b.GraphTooltip)
	}
	if len(b.Panels) < 4 || b.Panels[0].Type != "row" {
		t.Fatalf("first panel is %+v, want a row", b.Panels[0])
	}
	wantTypes := []string{"timeseries", "status-history", "state-timeline"}
	y := -1
	for i, want := range wantTypes {
		p := b.Panels[1+i]
		if p.Type != want || p.GridPos.W != 24 || p.GridPos.X != 0 || p.GridPos.Y <= y {
			t.Errorf("synced chart %d: %s at %+v, want full-width %s below the previous one", i+1, p.Type, p.GridPos, want)
		}
		y = p.GridPos.Y
	}
	colours := map[string]string{}
	for _, o := range b.Panels[1].FieldConfig.Overrides {
		for _, p := range o.Properties {
			if m, ok := p.Value.(map[string]any); ok && p.ID == "color" {
				colours[o.Matcher.Options], _ = m["fixedColor"].(string)
			}
		}
	}
	for cat, c := range map[string]string{"cpu": "green", "shuffle": "red", "serde": "purple", "gc": "orange", "efficiency": "blue"} {
		if colours[cat] != c {
			t.Errorf("top chart: %s is %q, want %q", cat, colours[cat], c)
		}
	}
	vars := map[string]string{}
	for _, v := range b.Templating.List {
		vars[v.Name] = v.Type
	}
	for name, typ := range map[string]string{"DS_PROMETHEUS": "datasource", "cluster": "query", "job": "query", "instance": "query",
		"app_name": "query", "app_id": "query"} {
		if vars[name] != typ {
			t.Errorf("variable %s is %q, want %q", name, vars[name], typ)
		}
	}
}

func TestPanelsHaveIDsAndRefIDs(t *testing.T) {
	for _, f := range generated(t) {
		var raw struct {
			Panels []map[string]any `json:"panels"`
		}
		if err := json.Unmarshal(f.JSON, &raw); err != nil {
			t.Fatal(err)
		}
		seen := map[float64]bool{}
		for _, p := range raw.Panels {
			id, _ := p["id"].(float64)
			if id == 0 || seen[id] {
				t.Errorf("%s: panel %q has id %v (missing or duplicate)", f.Name, p["title"], p["id"])
			}
			seen[id] = true
		}
		for _, p := range decode(t, f.Name).Panels {
			for _, tg := range p.Targets {
				if tg.RefID == "" {
					t.Errorf("%s: panel %q has a target without refId", f.Name, p.Title)
				}
			}
		}
	}
}

// Every PromQL expression (panels and variables) parses in a real
// Prometheus and names only documented metrics or recording rules.
func TestQueriesAreValidAndDocumented(t *testing.T) {
	srv := promtest.Start(t, promtest.MinimalConfig, nil)
	var recorded []string
	for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
		for _, r := range g.Rules {
			if r.Record != "" {
				recorded = append(recorded, r.Record)
			}
		}
	}
	promqltest.CheckExpressions(t, srv, Expressions(t), promqltest.Known(t, recorded))
}

// labelValues is Grafana's label_values(selector, label) variable query.
var labelValues = regexp.MustCompile(`^label_values\((.+),\s*\w+\)$`)

// Expressions lists every PromQL expression of the committed dashboards.
func Expressions(t *testing.T) []promqltest.Expr {
	t.Helper()
	var out []promqltest.Expr
	for _, f := range generated(t) {
		b := decode(t, f.Name)
		for _, p := range b.Panels {
			for _, tg := range p.Targets {
				out = append(out, promqltest.Expr{Where: f.Name + ": " + p.Title + " " + tg.RefID, Text: tg.Expr})
			}
		}
		for _, v := range b.Templating.List {
			if q, ok := v.Query.(string); ok && v.Type == "query" {
				m := labelValues.FindStringSubmatch(q)
				if m == nil {
					t.Fatalf("%s: variable %s: query %q is not label_values(selector, label)", f.Name, v.Name, q)
				}
				out = append(out, promqltest.Expr{Where: f.Name + ": variable " + v.Name, Text: m[1]})
			}
		}
	}
	return out
}

func generated(t *testing.T) []dashboards.File {
	t.Helper()
	files, err := dashboards.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("%d dashboards, want 3", len(files))
	}
	return files
}

func decode(t *testing.T, name string) board {
	t.Helper()
	for _, f := range generated(t) {
		if f.Name == name {
			var b board
			if err := json.Unmarshal(f.JSON, &b); err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no dashboard %s", name)
	return board{}
}

// Both dashboards import from grafana.com: the Prometheus data source is
// the DS_PROMETHEUS input, every panel and variable reads it as
// ${DS_PROMETHEUS}, and __requires lists Grafana, Prometheus and every
// panel type used.
func TestImportableFromGrafanaCom(t *testing.T) {
	for _, f := range generated(t) {
		b := decode(t, f.Name)
		if len(b.Inputs) != 1 || b.Inputs[0].Name != "DS_PROMETHEUS" || b.Inputs[0].Type != "datasource" || b.Inputs[0].PluginID != "prometheus" {
			t.Errorf("%s: __inputs %+v, want the one DS_PROMETHEUS Prometheus data source", f.Name, b.Inputs)
		}
		required := map[string]bool{}
		for _, r := range b.Requires {
			required[r.Type+"/"+r.ID] = true
		}
		want := []string{"grafana/grafana", "datasource/prometheus"}
		for _, p := range b.Panels {
			if p.Type != "row" {
				want = append(want, "panel/"+p.Type)
			}
			if p.Type != "row" && (p.Datasource == nil || p.Datasource.UID != "${DS_PROMETHEUS}") {
				t.Errorf("%s: panel %q reads data source %+v, want ${DS_PROMETHEUS}", f.Name, p.Title, p.Datasource)
			}
		}
		for _, w := range want {
			if !required[w] {
				t.Errorf("%s: __requires lacks %s", f.Name, w)
			}
		}
		for _, v := range b.Templating.List {
			if v.Type == "query" && (v.Datasource == nil || v.Datasource.UID != "${DS_PROMETHEUS}") {
				t.Errorf("%s: variable %s reads data source %+v, want ${DS_PROMETHEUS}", f.Name, v.Name, v.Datasource)
			}
		}
	}
}

// The cluster, job and instance variables select over spark_app_info and
// sparkglance_build_info (present on the scrape and the OTLP path), offer "All" as the regular expression .* (so that a Prometheus
// without a cluster label still shows everything), and every panel query
// filters by all three.
func TestEveryQueryFiltersByClusterJobAndInstance(t *testing.T) {
	recorded := map[string]bool{}
	for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
		for _, r := range g.Rules {
			recorded[r.Record] = r.Record != ""
		}
	}
	filters := []string{`cluster=~"$cluster"`, `job=~"$job"`, `instance=~"$instance"`}
	for _, f := range generated(t) {
		b := decode(t, f.Name)
		vars := map[string]string{}
		for _, v := range b.Templating.List {
			q, _ := v.Query.(string)
			vars[v.Name] = q
			if v.Name == "cluster" || v.Name == "job" || v.Name == "instance" {
				if !v.IncludeAll || !v.Multi || v.AllValue != ".*" {
					t.Errorf("%s: variable %s: includeAll %v, multi %v, allValue %q; want All as .*", f.Name, v.Name, v.IncludeAll, v.Multi, v.AllValue)
				}
			}
		}
		for name, want := range map[string]string{
			"cluster":  "label_values(spark_app_info, cluster)",
			"job":      `label_values(sparkglance_build_info{` + alerts.JobSelector + `, cluster=~"$cluster"}, job)`,
			"instance": `label_values(sparkglance_build_info{` + alerts.JobSelector + `, cluster=~"$cluster", job=~"$job"}, instance)`,
		} {
			if vars[name] != want {
				t.Errorf("%s: variable %s queries %q, want %q", f.Name, name, vars[name], want)
			}
		}
		for _, p := range b.Panels {
			for _, tg := range p.Targets {
				for _, name := range promqltest.MetricNames(tg.Expr) {
					if recorded[name] {
						continue // aggregated over the filters' labels: filtered through spark_app_info
					}
					for _, sel := range selectorsOf(tg.Expr, name) {
						for _, m := range filters {
							if !strings.Contains(sel, m) {
								t.Errorf("%s: %s %s: %s%s lacks %s", f.Name, p.Title, tg.RefID, name, sel, m)
							}
						}
					}
				}
				for _, m := range filters {
					if !strings.Contains(tg.Expr, m) {
						t.Errorf("%s: %s %s does not filter by %s: %s", f.Name, p.Title, tg.RefID, m, tg.Expr)
					}
				}
			}
		}
	}
}

// selectorsOf returns the label matchers ("{…}", or "" where there are
// none) of every occurrence of metric name in expr.
func selectorsOf(expr, name string) []string {
	re := regexp.MustCompile(`(^|[^a-zA-Z0-9_:])` + regexp.QuoteMeta(name) + `(\{[^}]*\})?`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(expr, -1) {
		out = append(out, m[2])
	}
	return out
}
