//go:build e2e

package eventlog

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// A real JVM, found by the node agent as executor 1 of an application,
// burns a core for 5 rounds of 2 s. Each round ends a task of stage 0 or 1
// with the CPU time /proc gives the JVM; the agent's measured energy,
// divided by measuredSplit, must sum over the stages to what the agent
// measured for the executor (within 5 %), each stage getting its share of
// the CPU time.
func TestMeasuredEnergyOfABurningJVM(t *testing.T) {
	const appID, execID = "app-20260101000000-0042", "1"
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{
		MainClass: jvmtest.FakeExecutorMain,
		MainArgs:  []string{"--driver-url", "spark://CoarseGrainedScheduler@h:7078", "--executor-id", execID, "--app-id", appID, "--"},
	}, "spin=1")
	agent, err := process.New(process.Options{SysfsPath: t.TempDir(), TDPWatts: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	measured := process.NewMeasuredEnergy()
	measured.Attach(agent)

	app := analysis.New(analysis.DefaultConfig())
	add := func(format string, args ...any) {
		t.Helper()
		ev, err := sparkevent.DecodeLine(fmt.Appendf(nil, format, args...))
		if err != nil {
			t.Fatal(err)
		}
		app.Add(ev)
	}
	start := time.Now()
	ms := func(at time.Time) int64 { return at.UnixMilli() }
	add(`{"Event":"SparkListenerApplicationStart","App Name":"burn","App ID":%q,"Timestamp":%d,"User":"u"}`, appID, ms(start))
	add(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":%q,"Executor Info":{"Host":"h","Total Cores":1,"Log Urls":{}}}`, ms(start), execID)
	stageInfo := func(id int) string {
		return fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s%d","Number of Tasks":10,"RDD Info":[],"Parent IDs":[],"Details":"","Submission Time":%d,"Accumulables":[]}`, id, id, ms(start))
	}
	add(`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":%d,"Stage Infos":[%s,%s],"Stage IDs":[0,1],"Properties":{}}`, ms(start), stageInfo(0), stageInfo(1))
	add(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s,"Properties":{}}`, stageInfo(0))
	add(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s,"Properties":{}}`, stageInfo(1))

	if err := agent.Discover(start); err != nil {
		t.Fatal(err)
	}
	if err := agent.Sample(start); err != nil {
		t.Fatal(err)
	}
	var split measuredSplit
	cpuByStage := map[int]float64{}
	prevCPU, prevAt := jvmCPUSeconds(t, jvm.PID), start
	for round := range 5 {
		time.Sleep(2 * time.Second) // the JVM burns meanwhile; the loop is bounded
		now := time.Now()
		if err := agent.Sample(now); err != nil {
			t.Fatal(err)
		}
		cpu := jvmCPUSeconds(t, jvm.PID)
		stage := round % 2
		cpuByStage[stage] += cpu - prevCPU
		task := fmt.Sprintf(`{"Task ID":%d,"Index":%d,"Attempt":0,"Partition ID":%d,"Launch Time":%d,"Executor ID":%q,"Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%%d,"Failed":false,"Killed":false,"Accumulables":[]}`,
			round, round, round, ms(prevAt), execID)
		add(`{"Event":"SparkListenerTaskStart","Stage ID":%d,"Stage Attempt ID":0,"Task Info":%s}`, stage, fmt.Sprintf(task, 0))
		add(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":%s,"Task Metrics":{"Executor Run Time":%d,"Executor CPU Time":%d}}`,
			stage, fmt.Sprintf(task, ms(now)), ms(now)-ms(prevAt), int64((cpu-prevCPU)*1e9))
		prevCPU, prevAt = cpu, now
		r := app.Report()
		if !split.update(&r, measured) {
			t.Fatal("the agent measured nothing for the executor")
		}
	}
	total := measured.ExecutorJoules(appID)[execID]
	sum := split.stage[0] + split.stage[1]
	t.Logf("agent measured %.1f J for executor %s; stages %.1f J + %.1f J; JVM CPU %.2f s + %.2f s",
		total, execID, split.stage[0], split.stage[1], cpuByStage[0], cpuByStage[1])
	if total <= 0 {
		t.Fatal("no energy measured for a burning JVM")
	}
	if d := sum - total; d > 0.05*total || d < -0.05*total {
		t.Errorf("stages sum to %.1f J, the executor measured %.1f J: more than 5%% apart", sum, total)
	}
	for stage, cpu := range cpuByStage {
		want := total * cpu / (cpuByStage[0] + cpuByStage[1])
		if d := split.stage[stage] - want; d > 0.05*total || d < -0.05*total {
			t.Errorf("stage %d: %.1f J, its CPU share gives %.1f J", stage, split.stage[stage], want)
		}
	}
}

// jvmCPUSeconds is utime + stime of pid from /proc (USER_HZ 100).
func jvmCPUSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 (state) on
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	return (utime + stime) / 100
}
