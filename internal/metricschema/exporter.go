package metricschema

// CollectorLabel names the collector a scrape-health series is about: one
// of the collectors of the schema's sections.
var CollectorLabel = Closed("collector", CollectorEventlog, CollectorProcess, CollectorSpark, CollectorStacks)

// The exporter's own families (not a collector's: every scrape reports
// them, whichever collectors are enabled).
var (
	BuildInfo = secExporter.New("sparkglance_build_info", Gauge, "1", Open("version", "revision", "branch", "goversion", "goos", "goarch", "tags"),
		"A metric with a constant '1' value labeled by version, revision, branch, goversion from which sparkglance was built, and the goos and goarch for the build.")
	ScrapeCollectorSuccess = secExporter.New("sparkglance_scrape_collector_success", Gauge, "1", CollectorLabel.Label(),
		"sparkglance: whether a collector succeeded within the scrape deadline (1) or failed or timed out (0).")
	ScrapeCollectorDuration = secExporter.New("sparkglance_scrape_collector_duration_seconds", Gauge, "s", CollectorLabel.Label(),
		"sparkglance: duration of a collector's Update during this scrape.")
	OTLPExports = secExporter.New("sparkglance_otlp_exports_total", Counter, "{export}", ExportResultLabel.Label(),
		"OTLP pushes since the exporter started, by result: success or failure (only while --otlp.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT is set).")
)
