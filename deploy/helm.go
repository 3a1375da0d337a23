package deploy

import (
	"path"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/dashboards"
)

// HelmChartDir is the Helm chart's directory, relative to deploy/.
const HelmChartDir = "helm/sparkglance"

// HelmChartFiles returns the files the Helm chart carries copies of, by
// path relative to deploy/: the dashboards' JSON under dashboards/ and the
// rule file under rules/. Helm reads files only inside the chart's
// directory (.Files.Get), so the chart cannot use dashboards/ and alerts/
// directly; `make docs` writes these copies and a test checks them.
func HelmChartFiles(th alerts.Thresholds) (map[string][]byte, error) {
	boards, err := dashboards.Files()
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(boards)+1)
	for _, f := range boards {
		files[path.Join(HelmChartDir, "dashboards", f.Name)] = f.JSON
	}
	if files[path.Join(HelmChartDir, "rules", alerts.RuleFile)], err = alerts.Render(th); err != nil {
		return nil, err
	}
	return files, nil
}
