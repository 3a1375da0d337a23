package eventlog

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
)

// RegisterFindingFlags declares one --finding.* flag per threshold of
// analysis.FindingThresholds (and --sql.max-plan-nodes), defaulting to cfg's current values and writing
// into cfg. `serve` (through this collector's flags) and `analyze` both use
// it, so the two agree on names and defaults. It lives here rather than in
// internal/analysis because only commands, the exporter and collectors know kingpin
// (exporter.FlagGroup is kingpin's).
func RegisterFindingFlags(f exporter.FlagGroup, cfg *analysis.Config) {
	for _, t := range analysis.FindingThresholds() {
		flag := f.Flag("finding."+t.Name, t.Help)
		switch p := t.Field(cfg).(type) {
		case *time.Duration:
			flag.Default(p.String()).DurationVar(p)
		case *float64:
			flag.Default(strconv.FormatFloat(*p, 'f', -1, 64)).Float64Var(p) // 67108864, never 6.7108864e+07
		case *int:
			flag.Default(fmt.Sprint(*p)).IntVar(p)
		default:
			panic(fmt.Sprintf("finding threshold %s points at a %T", t.Name, p))
		}
	}
	f.Flag("sql.max-plan-nodes", "Plan nodes kept of each SQL execution, all its AQE plan versions together: a bigger plan is cut to its first nodes in pre-order and the oldest versions are dropped beyond the budget (the final plan stays), with a counted problem, so that a huge generated plan cannot take gigabytes.").
		Default(fmt.Sprint(cfg.SQLMaxPlanNodes)).IntVar(&cfg.SQLMaxPlanNodes)
	f.Flag("streaming.max-queries", "Structured Streaming queries analysed per application: later ones are counted as a problem and left out, so that an application starting queries in a loop cannot grow the analysis or the spark_streaming_* series without bound.").
		Default(fmt.Sprint(cfg.StreamingMaxQueries)).IntVar(&cfg.StreamingMaxQueries)
}
