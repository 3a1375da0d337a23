//lint:file-ignore SA1019 the classic dashboard schema (v1) is what Grafana's file provisioning and dashboard sidecar import on every version; v2 needs Grafana 12+.

package dashboards

import (
	"encoding/json"
	"fmt"

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
	} {
		db, err := d.build()
		if err != nil {
			return nil, fmt.Errorf("dashboards: building %s: %w", d.name, err)
		}
		if err := db.Validate(); err != nil {
			return nil, fmt.Errorf("dashboards: %s does not validate: %w", d.name, err)
		}
		b, err := json.MarshalIndent(db, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("dashboards: encoding %s: %w", d.name, err)
		}
		out = append(out, File{Name: d.name, JSON: append(b, '\n')})
	}
	return out, nil
}
