package reference

import (
	"io"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Sections returns the schema's sections: every family, by collector.
func Sections() []sm.Section { return sm.Sections() }

// WriteDoc renders docs/metrics.md.
func WriteDoc(w io.Writer) error {
	if _, err := io.WriteString(w, intro); err != nil {
		return err
	}
	return sm.WriteTables(w, Sections())
}

const intro = "# Metrics\n\n" +
	"<!-- Generated from the metric schema (internal/metricschema) by\n" +
	"     make docs — do not edit by hand. -->\n\n" +
	`The names are a contract with dashboards, alerts and outside checks.
Every metric is defined once, in the metric schema (package
internal/metricschema), and this page is rendered from it. The collectors column names the
` + "`--collector.<name>`" + ` flags whose collector emits a family. A closed label is
listed with every value it takes, in parentheses, and no series carries another (the
all-collectors tests check every series and OTLP point against the schema); the other
labels' values come from the logs, the flags or the system.

Tested against Debian's Prometheus 2.42 and Prometheus 3.16 (built from the version tools/go.mod
pins): both scrape real logs with every ` + "`spark_`" + ` series and value equal to ` + "`/metrics`" + `, and the
demo with the same families; Prometheus 2 by default and protobuf first, Prometheus 3 by default and under
each scrape protocol forced (PrometheusProto, OpenMetricsText1.0.0 and 0.0.1, PrometheusText1.0.0 and
0.0.4). Both promtools' ` + "`check metrics`" + ` and rule unit tests pass, and the demo-fed dashboard queries
return data and the demo's alerts fire under both. Pushed over OTLP, the series reach
Prometheus 3's OTLP receiver and, through the OpenTelemetry Collector 0.165, its remote write into
Prometheus 3 and its Prometheus exporter, with the values of ` + "`/metrics`" + ` under translated names
(deploy/README.md lists the families renamed). With ` + "`alerts/sparkglance-otlp-rules.yml`" + ` loaded, which
records those families back under these names, or under Prometheus 3's NoTranslation, the demo-fed dashboard
queries return data on the receiver and through the Collector's remote write as on a scrape. Every panel
query of every dashboard returns data on a Prometheus 3 scraping the demo beside a node agent (a real JVM
named like a Spark executor: its energy under the TDP model and its stack samples, and ` + "`--collector.spark`" + `
reading recorded Spark 3.4 driver answers); the OTLP paths, where only the demo pushes, lack those families.

The event-log collector's counters carry a created timestamp taken from the log, the same in every run of ` + "`serve`" + `: the
application's start for per-application counters, the executor's addition for per-executor ones, the
earliest run's start for ` + "`spark_workload_runs_total`" + ` (left out until the runs found at start are
all read and counted, rather than shown at 0). Only
the protobuf format carries it. The text formats have no ` + "`_created`" + ` lines: Prometheus 2, and
Prometheus 3 without a start-timestamp feature (it asks for OpenMetrics 1.0 first), store each such line
as a series of its own, doubling the counters' series, while Prometheus 3 with
` + "`--enable-feature=created-timestamp-zero-ingestion`" + ` or ` + "`st-storage`" + ` asks for protobuf first.
Tested with Prometheus 3.16 under ` + "`created-timestamp-zero-ingestion`" + ` and under
` + "`st-storage,use-start-timestamps`" + `: after ` + "`serve`" + ` restarts over the same logs, no
` + "`spark_app_settled_*`" + `, ` + "`spark_executor_settled_spill_bytes_total`" + ` or ` + "`spark_workload_runs_total`" + `
series resets and ` + "`increase()`" + ` across the restart is 0; the log of an application that ended minutes before it
arrived has its settled counters start from 0 at the application's start, so ` + "`increase()`" + ` over
its arrival is its whole value (without the feature Prometheus counts from the first value it
scrapes, and that value is left out). Prometheus 3 only injects that 0 within its head's window, about
an hour before its newest sample, and ` + "`use-start-timestamps`" + ` only uses a start inside the range
queried: an application that ran before then, its log copied in later, counts from its first scraped
value, as without the feature. The exporter's own counters (` + "`sparkglance_*`" + `) begin with the
exporter, so a restart is a reset for them.

Per-application series carry ` + "`app_id`" + ` and ` + "`app_name`" + `;
per-executor series add ` + "`executor_id`" + `. Only the latest attempt of
an application id is exported. When the event-log collector (` + "`eventlog`" + `) and
the spark collector (` + "`spark`" + `) both see one application, the families
they share come from the event log only, so each has one series per
application; the spark collector's REST figures know only the ` + "`run`" + ` and
` + "`gc`" + ` categories of ` + "`spark_executor_task_time_seconds_total`" + `.
Values computed in the background (the event-log collector reads logs on
its own schedule) are as of the latest poll, by default at most
` + "`--eventlog.poll-interval`" + ` (1s) old. Node-agent series (` + "`process`" + `,
` + "`stacks`" + `) carry ` + "`app_id`" + ` and ` + "`executor_id`" + ` but no ` + "`app_name`" + `.

## Stages, jobs, energy and cost: series per application

The ` + "`spark_stage_*`" + ` families carry one ` + "`stage_id`" + ` per stage (its attempts summed),
with the History Server's field meanings in base units. Each application keeps the
` + "`--eventlog.max-stages`" + ` (default 50) newest stage ids and sums the older ones under
` + "`stage_id=\"other\"`" + `, so a stage id costs 17 series (duration 1, tasks by status 3,
task time by category 5, spill by medium 2, shuffle read, shuffle write, input, output,
energy and cost 1 each) and an application at most 17 × (50 + 1) = 867 of them, plus 9 job,
energy and cost series (the job-duration summary's 5, ` + "`spark_jobs_total`" + `'s 2,
` + "`spark_app_energy_wh_total`" + `'s 1, ` + "`spark_app_cost_total`" + `'s 1). The energy series exist only for logs with Executor
CPU Time (one fewer per stage id and one fewer for the application without), the cost series unless
` + "`--cost.core-hour=0`" + ` and the stage cost only once the application ended, the job-duration summary once a finished job has times, and a node
agent's measurement adds one series per stage id and one for the application (` + "`source=\"measured\"`" + `).
Lower ` + "`--eventlog.max-stages`" + ` when many applications are followed at once.

Energy comes from the event log alone (no plugin, no RAPL): a task's CPU time × the watts
of one busy core (` + "`--energy.core-watts`" + `, default 4 W: CodeCarbon's
` + "`DEFAULT_POWER_PER_CORE`" + ` for a CPU missing from its table, mlco2/codecarbon
` + "`codecarbon/core/cpu.py`" + `; for known nodes give their power instead, with the node agent's flag
` + "`--energy.tdp-watts`" + ` or ` + "`--energy.cpu-model`" + ` looked up in its TDP table
(` + "`internal/cputdp`" + `, × ` + "`--energy.node-packages`" + `), divided by ` + "`--energy.node-cpus`" + `, the node's hardware threads), summed per stage,
job, executor and application. The application adds its allocated but idle core time
× the core watts × ` + "`--energy.idle-ratio`" + ` (default 0.1: CodeCarbon's load curve
TDP × (0.1 + 0.9 × load³) at zero load). ` + "`analyze`" + ` also gives gCO2e at
` + "`--energy.carbon-intensity`" + ` (default 480 gCO2e/kWh, the world average of electricity
generation in 2023 per Ember's Global Electricity Review 2024,
https://ember-climate.org/insights/research/global-electricity-review-2024/; Ember counts lifecycle emissions of all gases as CO2e). Logs without
Executor CPU Time (before Spark 2.1) get no energy. These series have ` + "`source=\"model\"`" + `. When
` + "`serve`" + ` also runs the node agent (` + "`--collector.process`" + `), each executor's measured
` + "`spark_executor_energy_joules_total`" + ` (RAPL or load × TDP) is divided among its stages by the task CPU
time each gained on it since the previous view (energy measured while no task of the executor ended waits for the
next one) and exported beside the model with ` + "`source=\"measured\"`" + `; only executors on nodes of that
process are measured.

## Cost

Cost prices what the executors were allocated, whether they used it or not: the
application's available core-hours (executor cores from each executor's add to its
remove, or the local-mode driver's) × ` + "`--cost.core-hour`" + `, plus its executor memory
GiB-hours × ` + "`--cost.memory-gib-hour`" + `, in ` + "`--cost.currency`" + ` (default USD). An
executor's memory is its container's, as Spark sizes it: ` + "`spark.executor.memory`" + ` (default 1g) plus
` + "`spark.executor.memoryOverhead`" + `, else ` + "`spark.executor.memoryOverheadFactor`" + ` (default 0.10) of it,
at least 384 MiB. The defaults are Google Cloud Compute Engine's on-demand list prices of
an N2 predefined vCPU (0.031611 USD per hour) and GiB of memory (0.004237 USD per hour)
in us-central1 (Iowa), https://cloud.google.com/compute/vm-instance-pricing, as listed
in 2024 (SKUs BB77-5FDA-69D9 and 5B01-D157-A097; OpenCost's default prices are the same): a public price that splits a VM's hour into the two parts Spark allocates. Give
your own (reserved, spot, another cloud) with the flags; ` + "`--cost.core-hour=0`" + ` turns
cost off everywhere. Wasted cost is the share of the cost that the idle allocated core
time stands for (cost × wasted core-hours ÷ available core-hours, wasted core-hours being
the available core time not spent on task CPU). A stage's cost is the application's split
by the stages' share of task run time; a workload run's cost is its application's.
` + "`analyze`" + ` (text and ` + "`cost`" + ` in the JSON), the report pages and ` + "`compare`" + ` show them;
` + "`spark_app_cost_total{currency}`" + ` and ` + "`spark_stage_cost_total{currency}`" + ` export them.

Serverless prices are the same allocation priced per unit of capacity:

- AWS Glue bills DPU-hours; one DPU is 4 vCPUs and 16 GB of memory. At a price P per
  DPU-hour (0.44 USD in most regions for Spark jobs), ` + "`--cost.core-hour=P/4 --cost.memory-gib-hour=0`" + `
  (0.11 for 0.44): a DPU's memory comes with its vCPUs. Glue's executors are whole DPUs
  (G.1X: 1 DPU, G.2X: 2), so core-hours × P/4 is the DPU-hours × P Glue bills, less its
  minimum billing time.
- Databricks bills DBUs on top of the cloud's VM price: an instance type consumes D DBUs
  per hour at a price of R per DBU (the workload type's: jobs, all-purpose, SQL) and
  costs V per hour from the cloud, with C vCPUs. Then
  ` + "`--cost.core-hour=(D×R + V)/C --cost.memory-gib-hour=0`" + ` prices the executors; a
  driver of the same type adds one more such instance for the application's wall time,
  which the executor allocation does not include.

## OTLP

The OTLP push (` + "`--otlp.endpoint`" + `) sends exactly the metrics of a scrape,
converted by the OpenTelemetry Prometheus bridge: the OTLP metric name is the
Prometheus name below (suffixes ` + "`_total`" + `, ` + "`_seconds`" + `, ` + "`_bytes`" + `
included), the HELP text is the description, labels are attributes, gauges
are Gauges and counters, summaries and histograms cumulative. Each metric carries the
UCUM unit of the unit column (families named at run time, ` + "`spark_metrics_*`" + `, and the
Go runtime's the unit of their name's suffix); a
backend that translates OTLP names to Prometheus names (appending the unit
and ` + "`_total`" + `) must be configured not to add them twice (Prometheus 3:
` + "`otlp: {translation_strategy: NoTranslation}`" + `), or load ` + "`alerts/sparkglance-otlp-rules.yml`" + `, which records the families its
default translation renames back under these names (deploy/README.md).

A cumulative point's start time is when its series began: the application's
start for per-application counters, the executor's addition for per-executor
ones (event-log and spark collectors), when the node agent began tracking the
executor or sampling the node for its CPU and energy counters (process
collector), the earliest run's start for a workload's runs, the exporter's start for the exporter's own and for counters whose
beginning is not known (the stacks collector's, Spark's metrics system's). A backend that turns cumulative
into delta points therefore counts an application's whole history once, however late
the exporter saw it. (Prometheus' text format does not show these created timestamps;
the protobuf format carries them.)

Resource attributes: ` + "`service.name=sparkglance`" + `, ` + "`service.version`" + `, ` + "`host.name`" + ` and
` + "`service.instance.id`" + ` (a random UUID made at start, so that node agents stay apart;
` + "`--otlp.service-instance-id`" + ` sets a stable one, e.g. the node name). ` + "`OTEL_RESOURCE_ATTRIBUTES`" + `
and ` + "`OTEL_SERVICE_NAME`" + ` override these defaults, and ` + "`--otlp.resource-attributes k=v,…`" + `
overrides both.

Every setting is taken from its flag if given, else from the standard
environment variable, else from sparkglance's default: ` + "`--otlp.endpoint`" + ` (else
` + "`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`" + ` or ` + "`OTEL_EXPORTER_OTLP_ENDPOINT`" + `, which also turn the
push on), ` + "`--otlp.protocol`" + ` (` + "`OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL`" + `, else ` + "`grpc`" + `),
` + "`--otlp.compression`" + ` (` + "`OTEL_EXPORTER_OTLP_[METRICS_]COMPRESSION`" + `, else ` + "`gzip`" + `),
` + "`--otlp.timeout`" + ` (` + "`OTEL_EXPORTER_OTLP_[METRICS_]TIMEOUT`" + `, else 10s, and never more than
` + "`--otlp.interval`" + `), ` + "`--otlp.headers`" + ` and ` + "`--otlp.insecure`" + ` (the SDK's
` + "`OTEL_EXPORTER_OTLP_[METRICS_]HEADERS`" + ` and ` + "`…_INSECURE`" + `; certificates come only from
` + "`OTEL_EXPORTER_OTLP_[METRICS_]CERTIFICATE`" + `). A push is made at start and then every
interval; one that fails is logged at once with the endpoint and what to change
(` + "`--otlp.insecure`" + ` for a plain-text endpoint, the address for a refused connection) and
counted in ` + "`sparkglance_otlp_exports_total{result=\"failure\"}`" + `.

`
