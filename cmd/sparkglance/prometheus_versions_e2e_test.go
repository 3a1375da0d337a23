//go:build e2e

package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// oddAppName is an application name our label values and Prometheus 3's
// escaping must carry unchanged: UTF-8, quotes, a backslash, a newline.
const oddAppName = "ventes \"nocturnes\" C:\\spark\nzweite Zeile – ✓"

// scrapeProtocols are the protocols Prometheus 3 can be told to use
// (scrape_protocols), each forced in a job of its own; "" is its default.
var scrapeProtocols = []string{"", "PrometheusProto", "OpenMetricsText1.0.0", "OpenMetricsText0.0.1", "PrometheusText1.0.0", "PrometheusText0.0.4"}

// Debian's Prometheus 2 and Prometheus 3 scrape sparkglance serving real
// logs (and a simulated application with an odd name) and the demo, each
// protocol in a job of its own: every job is up all along; for the real
// logs, whose applications are finished, every series Prometheus stores
// has the value /metrics shows and the same labels, and no series is
// missing on either side; for the live demo the families match. No scrape
// warning in Prometheus' log.
func TestPrometheusVersionsAgreeWithMetrics(t *testing.T) {
	dir := realLogsWithOddApp(t)
	realAddr, stopReal := runServe(t, "--eventlog.dir="+dir, "--eventlog.follow-external-links", "--eventlog.retention=876000h",
		"--log.level=warn", "--no-collector.spark")
	defer stopReal()
	demoAddr, stopDemo := runServe(t, "--demo", "--demo.tmpdir="+t.TempDir(), "--log.level=warn", "--no-collector.spark")
	defer stopDemo()
	for _, addr := range []string{realAddr, demoAddr} {
		promtest.WaitReady(t, "http://"+addr+"/-/ready", time.Minute, os.DevNull)
	}
	realSeries := settledMetrics(t, "http://"+realAddr+"/metrics")
	if !slices.ContainsFunc(realSeries, func(s flatSeries) bool { return strings.Contains(s.key, strconv.Quote(oddAppName)) }) {
		t.Fatalf("/metrics has no series of the application named %q", oddAppName)
	}

	testkit.ForEachPrometheus(t, func(t *testing.T, p testkit.Prometheus) {
		// Prometheus 2.42 has no scrape_protocols: its default (OpenMetrics
		// first), and protobuf first, which native histograms ask for.
		setups := []struct {
			flags     []string
			protocols []string
		}{{nil, []string{""}}, {[]string{"--enable-feature=native-histograms"}, []string{"proto-first"}}}
		if p.Major >= 3 {
			setups = setups[:1]
			setups[0].protocols = scrapeProtocols
		}
		for _, setup := range setups {
			var jobs []string
			config := "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\nscrape_configs:\n"
			for _, target := range []struct{ name, addr string }{{"real", realAddr}, {"demo", demoAddr}} {
				for _, protocol := range setup.protocols {
					job := target.name + "/" + cmp.Or(protocol, "default")
					jobs = append(jobs, job)
					config += fmt.Sprintf("  - job_name: %q\n    static_configs: [{targets: [%q]}]\n", job, target.addr)
					if protocol != "" && protocol != "proto-first" {
						config += fmt.Sprintf("    scrape_protocols: [%s]\n", protocol)
					}
				}
			}
			prom := promtest.StartRelease(t, p, config, nil, setup.flags...)
			for _, job := range jobs {
				if strings.HasPrefix(job, "real/") {
					compareRealJob(t, prom, job, realSeries)
				} else {
					compareDemoJob(t, prom, job, "http://"+demoAddr+"/metrics")
				}
			}
			for _, job := range jobs {
				if s, err := prom.Samples(fmt.Sprintf(`min_over_time(up{job=%q}[5m])`, job)); err != nil || len(s) != 1 || s[0].Value != 1 {
					t.Errorf("Prometheus %s, job %s: up over the run %v (%v), want 1 all along", p.Name, job, s, err)
				}
			}
			log, err := os.ReadFile(filepath.Join(prom.Dir, "prometheus.log"))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(log), "\n") {
				if l := strings.ToLower(line); strings.Contains(l, "level=warn") && strings.Contains(l, "scrape") {
					t.Errorf("Prometheus %s warned: %s", p.Name, line)
				}
			}
		}
	})
}

// realLogsWithOddApp links the shared top-level logs into a directory and
// adds a finished simulated application named oddAppName.
func realLogsWithOddApp(t *testing.T) string {
	t.Helper()
	dir := linkRealLogs(t)
	cfg := simulate.DefaultConfig()
	cfg.AppID, cfg.AppName = "app-20261207000000-0001", oddAppName
	writeSimulatedLog(t, filepath.Join(dir, cfg.AppID), cfg)
	return dir
}

// flatSeries is one series as Prometheus stores it: its name and labels
// (le and quantile values in Go's shortest float form: Prometheus 3 stores
// le="1.0" where the text format has le="1"), and its value.
type flatSeries struct {
	key   string
	value float64
}

// seriesKey is name{label="value",…} with the labels sorted, quoted by Go,
// those of empty values left out as Prometheus leaves them out.
func seriesKey(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k, v := range labels {
		if v != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(name + "{")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		v := labels[k]
		if k == "le" || k == "quantile" {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				v = strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		b.WriteString(k + "=" + strconv.Quote(v))
	}
	b.WriteByte('}')
	return b.String()
}

// flatten turns text-format families into Prometheus' series: a summary's
// quantiles, _sum and _count, a histogram's _bucket, _sum and _count.
func flatten(families map[string]*dto.MetricFamily) []flatSeries {
	var out []flatSeries
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			with := func(k, v string) map[string]string {
				l := maps.Clone(labels)
				l[k] = v
				return l
			}
			add := func(n string, l map[string]string, v float64) {
				out = append(out, flatSeries{seriesKey(n, l), v})
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				add(name, labels, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				add(name, labels, m.GetGauge().GetValue())
			case dto.MetricType_UNTYPED:
				add(name, labels, m.GetUntyped().GetValue())
			case dto.MetricType_SUMMARY:
				for _, q := range m.GetSummary().GetQuantile() {
					add(name, with("quantile", strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)), q.GetValue())
				}
				add(name+"_sum", labels, m.GetSummary().GetSampleSum())
				add(name+"_count", labels, float64(m.GetSummary().GetSampleCount()))
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					add(name+"_bucket", with("le", strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)), float64(b.GetCumulativeCount()))
				}
				add(name+"_bucket", with("le", "+Inf"), float64(h.GetSampleCount()))
				add(name+"_sum", labels, h.GetSampleSum())
				add(name+"_count", labels, float64(h.GetSampleCount()))
			}
		}
	}
	slices.SortFunc(out, func(a, b flatSeries) int { return strings.Compare(a.key, b.key) })
	return out
}

// scrapeSeries GETs url (the text format) and flattens it.
func scrapeSeries(t *testing.T, url string) ([]flatSeries, error) {
	t.Helper()
	body := testkit.HTTPGetOK(t, url)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	return flatten(families), nil
}

// settledMetrics polls /metrics of the real logs until two answers a
// second apart have the same spark_ series and values: every log read.
func settledMetrics(t *testing.T, url string) []flatSeries {
	t.Helper()
	var last []flatSeries
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		s, err := scrapeSeries(t, url)
		if err != nil {
			t.Fatal(err)
		}
		spark := sparkOnly(s)
		if len(spark) > 0 && slices.Equal(spark, last) {
			return s
		}
		last = spark
	}
	t.Fatalf("%s did not settle within 2 minutes", url)
	return nil
}

func sparkOnly(s []flatSeries) []flatSeries {
	var out []flatSeries
	for _, x := range s {
		if strings.HasPrefix(x.key, "spark_") {
			out = append(out, x)
		}
	}
	return out
}

// scrapeAdded are the series Prometheus adds to every target.
var scrapeAdded = map[string]bool{"up": true, "scrape_duration_seconds": true, "scrape_samples_scraped": true,
	"scrape_samples_post_metric_relabeling": true, "scrape_series_added": true}

// jobSeries is every series Prometheus has now of job, without the job
// and instance labels and the series the scrape adds.
func jobSeries(prom *promtest.Server, job string) ([]flatSeries, error) {
	samples, err := prom.Samples(fmt.Sprintf(`{job=%q}`, job))
	if err != nil {
		return nil, err
	}
	var out []flatSeries
	for _, s := range samples {
		name := s.Labels["__name__"]
		if scrapeAdded[name] {
			continue
		}
		l := maps.Clone(s.Labels)
		delete(l, "__name__")
		delete(l, "job")
		delete(l, "instance")
		out = append(out, flatSeries{seriesKey(name, l), s.Value})
	}
	slices.SortFunc(out, func(a, b flatSeries) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// diffSeries lists what differs between Prometheus' series and /metrics':
// series on one side only, and spark_ values (the finished applications'
// own, which do not move) that differ.
func diffSeries(prom, metrics []flatSeries, values bool) []string {
	var diffs []string
	i, j := 0, 0
	for i < len(prom) || j < len(metrics) {
		switch {
		case j == len(metrics) || (i < len(prom) && prom[i].key < metrics[j].key):
			diffs = append(diffs, "only in Prometheus: "+prom[i].key)
			i++
		case i == len(prom) || metrics[j].key < prom[i].key:
			diffs = append(diffs, "only in /metrics: "+metrics[j].key)
			j++
		default:
			a, b := prom[i].value, metrics[j].value
			if values && strings.HasPrefix(prom[i].key, "spark_") && a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				diffs = append(diffs, fmt.Sprintf("%s: Prometheus %v, /metrics %v", prom[i].key, a, b))
			}
			i++
			j++
		}
	}
	return diffs
}

// compareRealJob waits (bounded) until Prometheus has job's series as
// /metrics of the finished real logs serves them, values included.
func compareRealJob(t *testing.T, prom *promtest.Server, job string, want []flatSeries) {
	t.Helper()
	var diffs []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		got, err := jobSeries(prom, job)
		if err != nil {
			t.Fatal(err)
		}
		// The exporter's own series (Go runtime, scrape durations) move;
		// their names and labels must match, and every spark_ value.
		diffs = diffSeries(got, want, true)
		diffs = slices.DeleteFunc(diffs, volatileSelfSeries)
		if len(diffs) == 0 {
			return
		}
	}
	t.Errorf("job %s after a minute: %d differences with /metrics, the first:\n%s", job, len(diffs), strings.Join(diffs[:min(len(diffs), 20)], "\n"))
}

// volatileSelfSeries are exporter series that come and go between any two
// scrapes (a histogram bucket set of request durations by handler, say).
func volatileSelfSeries(diff string) bool {
	for _, prefix := range []string{"only in Prometheus: ", "only in /metrics: "} {
		if k, ok := strings.CutPrefix(diff, prefix); ok {
			return strings.HasPrefix(k, "go_") || strings.HasPrefix(k, "process_") || strings.HasPrefix(k, "promhttp_")
		}
	}
	return false
}

// compareDemoJob waits (bounded) until Prometheus has the families of
// job that /metrics of the live demo serves: its values move.
func compareDemoJob(t *testing.T, prom *promtest.Server, job, url string) {
	t.Helper()
	var diffs []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		got, err := jobSeries(prom, job)
		if err != nil {
			t.Fatal(err)
		}
		want, err := scrapeSeries(t, url)
		if err != nil {
			t.Fatal(err)
		}
		diffs = diffSeries(familiesOf(got), familiesOf(want), false)
		if len(diffs) == 0 {
			return
		}
	}
	t.Errorf("job %s after a minute: families differ from /metrics:\n%s", job, strings.Join(diffs, "\n"))
}

// familiesOf is the series names of s, once each.
func familiesOf(s []flatSeries) []flatSeries {
	var out []flatSeries
	for _, x := range s {
		name, _, _ := strings.Cut(x.key, "{")
		if len(out) == 0 || out[len(out)-1].key != name {
			out = append(out, flatSeries{key: name})
		}
	}
	slices.SortFunc(out, func(a, b flatSeries) int { return strings.Compare(a.key, b.key) })
	return slices.CompactFunc(out, func(a, b flatSeries) bool { return a.key == b.key })
}
