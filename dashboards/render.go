//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

package dashboards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// File is one generated dashboard.
type File struct {
	Name string // file name inside dashboards/
	JSON []byte
}

// Files renders every dashboard as indented JSON, in a stable order.
func Files() ([]File, error) {
	var out []File
	for _, d := range []struct {
		name  string
		build func() (dashboard.Dashboard, error)
	}{
		{"spark-app-at-a-glance.json", Glance},
		{"spark-fleet.json", Fleet},
		{"spark-workloads.json", Workloads},
	} {
		db, err := d.build()
		if err != nil {
			return nil, fmt.Errorf("dashboards: building %s: %w", d.name, err)
		}
		if err := db.Validate(); err != nil {
			return nil, fmt.Errorf("dashboards: %s does not validate: %w", d.name, err)
		}
		b, err := forImport(db)
		if err != nil {
			return nil, fmt.Errorf("dashboards: encoding %s: %w", d.name, err)
		}
		out = append(out, File{Name: d.name, JSON: append(b, '\n')})
	}
	return out, nil
}

// MinGrafanaVersion is the Grafana the import asks for: the version the
// compose demo runs (deploy/compose), the one the dashboards are looked at
// with.
const MinGrafanaVersion = "11.6.0"

// Input is an entry of __inputs: what grafana.com's import asks the user
// for, here the Prometheus data source that replaces ${DS_PROMETHEUS}.
type Input struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Description string `json:"description"`
	Type        string `json:"type"`
	PluginID    string `json:"pluginId"`
	PluginName  string `json:"pluginName"`
}

// Require is an entry of __requires: a plugin the import checks is
// installed.
type Require struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// panelNames are the display names of the panel plugins used.
var panelNames = map[string]string{
	"timeseries": "Time series", "stat": "Stat", "table": "Table",
	"status-history": "Status history", "state-timeline": "State timeline",
}

// forImport encodes db as Grafana's "export for sharing externally" does:
// the dashboard with __inputs and __requires first, which grafana.com and
// Grafana's import read (file provisioning ignores them).
func forImport(db dashboard.Dashboard) ([]byte, error) {
	body, err := json.Marshal(db)
	if err != nil {
		return nil, err
	}
	requires := []Require{
		{Type: "grafana", ID: "grafana", Name: "Grafana", Version: MinGrafanaVersion},
		{Type: "datasource", ID: "prometheus", Name: "Prometheus", Version: "1.0.0"},
	}
	var types []string
	for _, p := range db.Panels {
		if p.Panel != nil && p.Panel.Type != "" && panelNames[p.Panel.Type] != "" && !slices.Contains(types, p.Panel.Type) {
			types = append(types, p.Panel.Type)
		}
	}
	slices.Sort(types)
	for _, t := range types {
		requires = append(requires, Require{Type: "panel", ID: t, Name: panelNames[t], Version: ""})
	}
	head, err := json.Marshal(struct {
		Inputs   []Input   `json:"__inputs"`
		Requires []Require `json:"__requires"`
	}{
		Inputs: []Input{{Name: VarDatasource, Label: "Prometheus", Description: "The Prometheus that scrapes sparkglance.",
			Type: "datasource", PluginID: "prometheus", PluginName: "Prometheus"}},
		Requires: requires,
	})
	if err != nil {
		return nil, err
	}
	// Both are JSON objects: join {head…} and {body…} into one.
	joined := append(append(head[:len(head)-1:len(head)-1], ','), body[1:]...)
	var out bytes.Buffer
	if err := json.Indent(&out, joined, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
