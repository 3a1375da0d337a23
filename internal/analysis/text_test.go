package analysis

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFmtUnits(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{fmtBytes(580_911_104), "554 MiB"},
		{fmtBytes(1536), "1.5 KiB"},
		{fmtBytes(512), "512 B"},
		{fmtBytes(-3), "0 B"},
		{fmtBytes(5 << 40), "5.0 TiB"},
		{fmtSeconds(5340), "1h29m"},
		{fmtSeconds(725), "12m05s"},
		{fmtSeconds(119.6), "2m00s"},
		{fmtSeconds(4.25), "4.3s"}, // halves round away from zero, as the page does
		{fmtSeconds(0.85), "850ms"},
		{fmtSeconds(-1), "0s"},
		{fmtSeconds(3*86400 + 4*3600), "3d04h"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestShortStageName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"collect at MyJob.scala:42", "collect at MyJob.scala:42"},
		{"wrapper at /Workspace/Repos/.internal/ff6841501e_commits/6c022efa2cdde20921e626a948ba956dc4d6e842/nds/nds_power.py:132", "wrapper at nds_power.py:132"},
		{"org.apache.spark.sql.Dataset.collectAsList at org.apache.spark.sql.execution.SQLExecution.scala:123", "collectAsList at SQLExecution.scala:123"},
		{"$anonfun$recordsToDataFrame$1$anonfun$withNewExecutionId$5$anonfun$apply$2 at StreamExecution.scala:301", "…$5$anonfun$apply$2 at StreamExecution.scala:301"},
		{"load at <unknown>:0", "load at <unknown>:0"},
		{"a stage name without a call site that is much longer than the limit", "a stage name without a call site that is much l…"},
	} {
		got := shortStageName(c.in, maxStageName)
		if got != c.want {
			t.Errorf("shortStageName(%q) = %q, want %q", c.in, got, c.want)
		}
		if n := len([]rune(got)); n > maxStageName {
			t.Errorf("%q is %d characters, more than %d", got, n, maxStageName)
		}
	}
}

// The text report of a hand-built application: human units, collapsed
// runs of identical rows, spill per executor, shortened stage names, SQL
// findings naming their operator and grouped with a count.
func TestWriteTextReadable(t *testing.T) {
	t0 := int64(1_700_000_000_000)
	long := "count at /home/me/jobs/very/deep/directory/structure/etl/daily_job.py:77"
	b := (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", 2).execAdded(t0, "2", 2)
	b.add(`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":%d,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%q,"Number of Tasks":2,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[],"Resource Profile Id":0}],"Stage IDs":[0],"Properties":{}}`, t0+10, long)
	b.add(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%q,"Number of Tasks":2,"Submission Time":%d,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[],"Resource Profile Id":0},"Properties":{}}`, long, t0+10)
	// Both tasks run 5,350 s (1h29m10s) at a constant pace: every interval
	// in between looks the same.
	b.tasks(tk{id: 1, exec: "1", launch: t0 + 1000, finish: t0 + 5_351_000, cpuNs: 5_350e9, runMs: 5_350_000, memSpill: 3 << 30},
		tk{id: 2, exec: "2", launch: t0 + 1000, finish: t0 + 5_351_000, cpuNs: 5_350e9, runMs: 5_350_000, memSpill: 1 << 30})
	b.add(`{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%q,"Number of Tasks":2,"Submission Time":%d,"Completion Time":%d,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[],"Resource Profile Id":0}}`, long, t0+10, t0+5_351_010)
	b.jobEnd(0, t0+5_351_010).appEnd(t0 + 5_352_000)
	cfg := DefaultConfig()
	cfg.Interval = 10 * time.Second
	r := analyzeLines(t, b.lines, cfg)
	exec, op1, op2 := int64(3), 7, 9
	r.Findings = append(r.Findings,
		Finding{Kind: "bottleneck_operator", ExecutionID: &exec, OperatorID: &op1, Operator: "SortMergeJoin", Numbers: map[string]float64{"share": 0.9}, Advice: "look at the join"},
		Finding{Kind: "bottleneck_operator", ExecutionID: &exec, OperatorID: &op2, Operator: "SortMergeJoin", Numbers: map[string]float64{"share": 0.8}, Advice: "look at the join"},
		Finding{Kind: "native_spill", ExecutionID: &exec, OperatorID: &op1, Operator: "SortMergeJoin", Numbers: map[string]float64{"spillBytes": 580_911_104}, Advice: "spilled"})
	var out bytes.Buffer
	if err := WriteText(&out, r); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"(1h29m)",        // application duration
		"task CPU 2h58m", // 10,700 CPU seconds
		"spilled 4.0 GiB from memory, 0 B to disk",
		"identical intervals …", // the steady hour and a half is collapsed
		"| spill memory ",       // spill per row…
		"exec 1 ", "exec 2 ",    // …per executor, the bigger first
		"stage 0.0 COMPLETE    1h29m  2 tasks", // stage wall time
		"count at daily_job.py:77",             // the call site, not the directory
		"bottleneck_operator ×2: SortMergeJoin in query 3 operators 7, 9",
		"native_spill: query 3 operator 7 (SortMergeJoin): spillBytes=554 MiB",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	if i, j := strings.Index(text, "exec 1 "), strings.Index(text, "exec 2 "); i > j {
		t.Errorf("executor 1 (3 GiB) should come before executor 2 (1 GiB):\n%s", text)
	}
	if n := strings.Count(text, "\n"); n > 40 {
		t.Errorf("%d lines: identical rows were not collapsed:\n%s", n, text)
	}
}

// A chart row names the executors that spilled most as sorting them all
// did (most spill first, ties by compareExecIDs), for rows with ties,
// memory or only disk spill, and more executors than it names.
func TestSpillTextNamesTheTopExecutors(t *testing.T) {
	sortedText := func(spill map[string][2]float64) string { // the former spillText
		var total [2]float64
		for _, v := range spill {
			total[0] += v[0]
			total[1] += v[1]
		}
		k, what := 0, "memory"
		if total[0] <= 0 {
			k, what = 1, "disk"
		}
		if total[k] <= 0 {
			return ""
		}
		var ids []string
		for id, v := range spill {
			if v[k] > 0 {
				ids = append(ids, id)
			}
		}
		slices.SortFunc(ids, func(x, y string) int {
			return cmp.Or(cmp.Compare(spill[y][k], spill[x][k]), compareExecIDs(x, y))
		})
		var parts []string
		for _, id := range ids[:min(len(ids), maxSpillExecutors)] {
			parts = append(parts, "exec "+id+" "+fmtBytes(spill[id][k]))
		}
		if n := len(ids) - maxSpillExecutors; n > 0 {
			parts = append(parts, fmt.Sprintf("+%d more", n))
		}
		return fmt.Sprintf("spill %s %s: %s", what, fmtBytes(total[k]), strings.Join(parts, ", "))
	}
	rng := rand.New(rand.NewPCG(13, 17))
	for round := range 2000 {
		spill := map[string][2]float64{}
		for range rng.IntN(12) {
			id := []string{"driver", "a", "b7"}[rng.IntN(3)]
			if rng.IntN(4) > 0 {
				id = fmt.Sprint(rng.IntN(30))
			}
			v := [2]float64{float64(rng.IntN(4)) * 1024 * 1024, float64(rng.IntN(3)) * 1024}
			if round%3 == 0 {
				v[0] = 0 // disk spill only
			}
			spill[id] = v
		}
		if got, want := spillText(spill), sortedText(spill); got != want {
			t.Fatalf("round %d: %q, want %q", round, got, want)
		}
	}
}
