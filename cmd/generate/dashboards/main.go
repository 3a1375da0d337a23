// Command dashboards writes the generated files of the repository other than
// docs/metrics.md (cmd/generate/metricsdoc's) — the dashboards' JSON, the
// Prometheus rule file and the one for an OTLP-fed Prometheus, the Kubernetes PrometheusRule and dashboards
// ConfigMap, and the Helm chart's copies of the dashboards and the rule file
// — from the Go code (`make docs`), and pins the image the manifests and the
// compose file run to the VERSION file's tag. Tests fail when a committed
// file differs from its output.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/dashboards"
	"github.com/sparkglance/sparkglance/deploy"
)

func main() {
	root := flag.String("root", ".", "repository root to write into")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	files := map[string][]byte{}
	boards, err := dashboards.Files()
	if err != nil {
		return err
	}
	for _, f := range boards {
		files[filepath.Join("dashboards", f.Name)] = f.JSON
	}
	th := alerts.DefaultThresholds()
	// The Helm chart carries copies of the dashboards and the rule file.
	chart, err := deploy.HelmChartFiles(th)
	if err != nil {
		return err
	}
	for name, b := range chart {
		files[filepath.Join("deploy", filepath.FromSlash(name))] = b
	}
	if files[filepath.Join("alerts", alerts.RuleFile)], err = alerts.Render(th); err != nil {
		return err
	}
	if files[filepath.Join("alerts", alerts.OTLPRuleFile)], err = alerts.RenderOTLP(); err != nil {
		return err
	}
	if files[filepath.Join("deploy", deploy.PrometheusRuleFile)], err = deploy.PrometheusRule(th); err != nil {
		return err
	}
	if files[filepath.Join("deploy", deploy.DashboardsFile)], err = deploy.DashboardsConfigMap(); err != nil {
		return err
	}
	// The manifests and the compose file run the image `make image` tags.
	tag, err := deploy.ReadVersion(root)
	if err != nil {
		return err
	}
	for _, f := range deploy.ImageFiles {
		name := filepath.Join("deploy", f)
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return err
		}
		if files[name], err = deploy.PinImage(b, tag); err != nil {
			return err
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", name)
	}
	return nil
}
