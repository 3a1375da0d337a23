package exporter_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// settledCollector hands over a counter with created timestamps and a
// gauge, whose label values hold UTF-8, quotes, a backslash and a newline.
type settledCollector struct{}

func (settledCollector) Families(context.Context) ([]exporter.Family, error) {
	created := timestamppb.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	series := func(app string, counter bool, v float64) *dto.Metric {
		name := "app_name"
		m := &dto.Metric{Label: []*dto.LabelPair{{Name: &name, Value: &app}}}
		if counter {
			m.Counter = &dto.Counter{Value: &v, CreatedTimestamp: created}
		} else {
			m.Gauge = &dto.Gauge{Value: &v}
		}
		return m
	}
	odd := "q\"u\\o\nté ✓"
	c, g := dto.MetricType_COUNTER, dto.MetricType_GAUGE
	return []exporter.Family{
		{Name: "sparkglance_test_settled_seconds_total", Help: "Test: a \"settled\" counter\\.", Type: c, Parts: []*exporter.Part{
			exporter.NewPart("sparkglance_test_settled_seconds_total", c, []*dto.Metric{series("a", true, 3)}),
			exporter.NewPart("sparkglance_test_settled_seconds_total", c, []*dto.Metric{series(odd, true, 1.5)}),
		}},
		{Name: "sparkglance_test_level", Help: "Test: a gauge.", Type: g, Parts: []*exporter.Part{
			exporter.NewPart("sparkglance_test_level", g, []*dto.Metric{series("a", false, 2), series(odd, false, 0.25)}),
		}},
	}, nil
}

// prometheus3Accept is the Accept header Prometheus 3 sends for scrape
// protocols in order (its acceptHeader), with UTF-8 names allowed.
func prometheus3Accept(protocols ...string) string {
	headers := map[string]string{
		"PrometheusProto":      "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
		"PrometheusText0.0.4":  "text/plain;version=0.0.4",
		"PrometheusText1.0.0":  "text/plain;version=1.0.0;escaping=allow-utf-8",
		"OpenMetricsText0.0.1": "application/openmetrics-text;version=0.0.1",
		"OpenMetricsText1.0.0": "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8",
	}
	var vals []string
	weight := 7
	for _, p := range protocols {
		vals = append(vals, headers[p]+";q=0."+string(rune('0'+weight)))
		weight--
	}
	return strings.Join(append(vals, "*/*;q=0."+string(rune('0'+weight))), ",")
}

// /metrics answers each format a Prometheus asks for, OpenMetrics
// included, with what the registry path encodes in that format (no
// _created samples); a text/plain;version=1.0.0 request gets the text
// format, with the escaping it asked for. The same with and without a
// FamilyCollector (the text path and the registry path).
func TestMetricsFormatNegotiated(t *testing.T) {
	for _, c := range []struct {
		name, accept string
		want         expfmt.FormatType
		version      string // of the answer's Content-Type
		escaping     string // of the answer's Content-Type
	}{
		{"no Accept", "", expfmt.TypeTextPlain, "0.0.4", "underscores"},
		{"Prometheus 2.42 default", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
			expfmt.TypeOpenMetrics, "1.0.0", "underscores"},
		{"Prometheus 3 default", prometheus3Accept("OpenMetricsText1.0.0", "OpenMetricsText0.0.1", "PrometheusText1.0.0", "PrometheusText0.0.4"),
			expfmt.TypeOpenMetrics, "1.0.0", "allow-utf-8"},
		{"PrometheusProto", prometheus3Accept("PrometheusProto"), expfmt.TypeProtoDelim, "", "underscores"},
		{"OpenMetricsText1.0.0", prometheus3Accept("OpenMetricsText1.0.0"), expfmt.TypeOpenMetrics, "1.0.0", "allow-utf-8"},
		{"OpenMetricsText0.0.1", prometheus3Accept("OpenMetricsText0.0.1"), expfmt.TypeOpenMetrics, "0.0.1", "underscores"},
		{"PrometheusText1.0.0", prometheus3Accept("PrometheusText1.0.0"), expfmt.TypeTextPlain, "0.0.4", "allow-utf-8"},
		{"PrometheusText0.0.4", prometheus3Accept("PrometheusText0.0.4"), expfmt.TypeTextPlain, "0.0.4", "underscores"},
	} {
		for _, path := range []string{"text path", "registry path"} {
			t.Run(c.name+"/"+path, func(t *testing.T) {
				collectors := map[string]exporter.Collector{"answer": exporter.FromUpdater(answerCollector{})}
				names := []string{"sparkglance_test_answer"}
				if path == "text path" {
					collectors["settled"] = exporter.FromFamilies(settledCollector{})
					names = append(names, "sparkglance_test_level", "sparkglance_test_settled_seconds_total")
				}
				srv := exportertest.Start(t, exportertest.Catalog(collectors))
				contentType, body := getMetrics(t, srv.URL+"/metrics?name[]="+strings.Join(names, "&name[]="), c.accept)
				format := expfmt.Format(contentType)
				_, params, err := mime.ParseMediaType(contentType)
				if err != nil {
					t.Fatalf("Content-Type %q: %v", contentType, err)
				}
				if format.FormatType() != c.want || params["version"] != c.version || params["escaping"] != c.escaping {
					t.Fatalf("Content-Type %q, want format %v version %q escaping %q", contentType, c.want, c.version, c.escaping)
				}
				if want := registryEncoding(t, srv, format, names); body != want {
					t.Errorf("%s answer:\n%s\nthe registry path encodes:\n%s", contentType, body, want)
				}
				if c.want != expfmt.TypeOpenMetrics {
					return
				}
				if !strings.HasSuffix(body, "# EOF\n") || strings.Contains(body, "_created") {
					t.Errorf("OpenMetrics answer without # EOF or with _created samples:\n%s", body)
				}
				if path == "text path" && !strings.Contains(body, `sparkglance_test_settled_seconds_total{app_name="q\"u\\o\nté ✓"} 1.5`) {
					t.Errorf("OpenMetrics answer lacks the escaped counter sample:\n%s", body)
				}
			})
		}
	}
}

// getMetrics GETs url with the Accept header accept (none if empty) and
// returns the answer's Content-Type and body.
func getMetrics(t *testing.T, url, accept string) (string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return resp.Header.Get("Content-Type"), string(body)
}

// registryEncoding is what the registry path gathers of the families
// names, encoded by expfmt in format.
func registryEncoding(t *testing.T, srv *exportertest.Server, format expfmt.Format, names []string) string {
	t.Helper()
	mfs, err := srv.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, format)
	for _, mf := range mfs {
		if slices.Contains(names, mf.GetName()) {
			if err := enc.Encode(mf); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := enc.(expfmt.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
