package sparkevent

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// decodeOK decodes a hand-written line, failing the test on error, and
// checks it agrees with the reference decoder.
func decodeOK(t *testing.T, line string) Event {
	t.Helper()
	ev, err := DecodeLine([]byte(line))
	if err != nil {
		t.Fatalf("DecodeLine(%.80q…): %v", line, err)
	}
	want, werr := refDecode([]byte(line))
	if werr != nil {
		t.Fatalf("reference decoder: %v", werr)
	}
	if d := eventtest.FirstDiff(ev.EventType(), reflect.ValueOf(ev), reflect.ValueOf(want)); d != "" {
		t.Errorf("fast vs reference: %s", d)
	}
	return ev
}

func TestDecodeLineTaskEndEveryField(t *testing.T) {
	line := `{"Event":"SparkListenerTaskEnd","Stage ID":7,"Stage Attempt ID":2,"Task Type":"ShuffleMapTask",` +
		`"Task End Reason":{"Reason":"ExceptionFailure","Class Name":"java.lang.RuntimeException","Description":"boom","Kill Reason":"kr","Stack Trace":[]},` +
		`"Task Info":{"Task ID":123,"Index":4,"Attempt":1,"Partition ID":9,"Launch Time":1000,"Executor ID":"3","Host":"h1","Locality":"NODE_LOCAL",` +
		`"Speculative":true,"Getting Result Time":1500,"Finish Time":2000,"Failed":true,"Killed":true,` +
		`"Accumulables":[{"ID":11,"Name":"n","Update":"5","Value":"50","Internal":true,"Count Failed Values":true,"Metadata":"sql"}]},` +
		`"Task Executor Metrics":{"JVMHeapMemory":100,"MinorGCCount":3},` +
		`"Task Metrics":{"Executor Deserialize Time":1,"Executor Deserialize CPU Time":2,"Executor Run Time":3,"Executor CPU Time":4,` +
		`"Peak Execution Memory":5,"Result Size":6,"JVM GC Time":7,"Result Serialization Time":8,"Memory Bytes Spilled":9,"Disk Bytes Spilled":10,` +
		`"Shuffle Read Metrics":{"Remote Blocks Fetched":11,"Local Blocks Fetched":12,"Fetch Wait Time":13,"Remote Bytes Read":14,` +
		`"Remote Bytes Read To Disk":15,"Local Bytes Read":16,"Total Records Read":17,"Remote Requests Duration":18,"Push Based Shuffle":{"x":1}},` +
		`"Shuffle Write Metrics":{"Shuffle Bytes Written":19,"Shuffle Write Time":20,"Shuffle Records Written":21},` +
		`"Input Metrics":{"Bytes Read":22,"Records Read":23},"Output Metrics":{"Bytes Written":24,"Records Written":25},` +
		`"Updated Blocks":[{"Block ID":"rdd_0_1","Status":{"Memory Size":1}}]}}`
	got := decodeOK(t, line)
	want := &TaskEnd{StageID: 7, StageAttemptID: 2, TaskType: "ShuffleMapTask",
		Reason: TaskEndReason{Reason: "ExceptionFailure", ClassName: "java.lang.RuntimeException", Description: "boom", KillReason: "kr"},
		Task: TaskInfo{TaskID: 123, Index: 4, Attempt: 1, PartitionID: 9, LaunchTime: 1000, ExecutorID: "3", Host: "h1",
			Locality: "NODE_LOCAL", Speculative: true, GettingResultTime: 1500, FinishTime: 2000, Failed: true, Killed: true,
			Accumulables: []Accumulable{{ID: 11, Name: "n", Update: 5, Value: 50, HasUpdate: true, Numeric: true,
				Internal: true, CountFailedValues: true, Metadata: "sql"}}},
		ExecutorMetrics: []NamedValue{{"JVMHeapMemory", 100}, {"MinorGCCount", 3}},
		Metrics: &TaskMetrics{ExecutorDeserializeTime: 1, ExecutorDeserializeCPUTime: 2, ExecutorRunTime: 3, ExecutorCPUTime: 4,
			HasExecutorCPUTime: true, PeakExecutionMemory: 5, ResultSize: 6, JVMGCTime: 7, ResultSerializationTime: 8,
			MemoryBytesSpilled: 9, DiskBytesSpilled: 10,
			ShuffleRead:  ShuffleReadMetrics{11, 12, 13, 14, 15, 16, 17, 18},
			ShuffleWrite: ShuffleWriteMetrics{19, 20, 21}, Input: InputMetrics{22, 23}, Output: OutputMetrics{24, 25}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestDecodeLineEveryFieldSet covers, with hand-written lines, the fields
// that are zero in every shared real log (zeroInRealLogs).
func TestDecodeLineEveryFieldSet(t *testing.T) {
	lines := []string{
		`{"Event":"SparkListenerApplicationEnd","Timestamp":5,"ExitCode":3}`,
		`{"Event":"SparkListenerStageExecutorMetrics","Executor ID":"1","Stage ID":2,"Stage Attempt ID":1,"Executor Metrics":{"a":1}}`,
		`{"Event":"SparkListenerTaskStart","Stage ID":1,"Stage Attempt ID":1,"Task Info":{"Task ID":1,"Getting Result Time":7}}`,
		`{"Event":"SparkListenerTaskEnd","Stage ID":1,"Stage Attempt ID":1,"Task Info":{"Getting Result Time":7},"Task Metrics":{"Shuffle Read Metrics":{"Remote Bytes Read To Disk":8}}}`,
		`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":1,"time":2,"errorMessage":"failed"}`,
		`{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":1,"Stage Attempt ID":1}}`,
		streamingStartedNamed, streamingProgressWatermark, streamingTerminatedFailed,
		`{"Event":"org.apache.spark.scheduler.SparkListenerExecutorExcludedForStage","time":9,"executorId":"3","taskFailures":2,"stageId":4,"stageAttemptId":1}`,
		`{"Event":"org.apache.spark.scheduler.SparkListenerNodeExcludedForStage","time":9,"hostId":"h","executorFailures":2,"stageId":4,"stageAttemptId":1}`,
	}
	cov := coverage{}
	for _, l := range lines {
		cov.add(reflect.ValueOf(decodeOK(t, l)))
	}
	for f := range zeroInRealLogs {
		if !cov[f] {
			t.Errorf("%s is not set by any hand-written line", f)
		}
	}
	if ev := decodeOK(t, lines[0]).(*ApplicationEnd); ev.ExitCode != 3 || !ev.HasExitCode {
		t.Errorf("ApplicationEnd = %+v", ev)
	}
	// The Spark 3.1+ names: not Legacy, and named back as written.
	n := len(lines)
	if ev := decodeOK(t, lines[n-2]).(*ExecutorExcludedForStage); *ev != (ExecutorExcludedForStage{Time: 9, ExecutorID: "3", TaskFailures: 2, StageID: 4, StageAttemptID: 1}) ||
		ev.EventType() != TypeExecutorExcludedForStage {
		t.Errorf("ExecutorExcludedForStage = %+v", ev)
	}
	if ev := decodeOK(t, lines[n-1]).(*NodeExcludedForStage); *ev != (NodeExcludedForStage{Time: 9, Host: "h", ExecutorFailures: 2, StageID: 4, StageAttemptID: 1}) ||
		ev.EventType() != TypeNodeExcludedForStage {
		t.Errorf("NodeExcludedForStage = %+v", ev)
	}
}

func TestDecodeLineDefaultsWhenKeysMissing(t *testing.T) {
	ev := decodeOK(t, `{"Event":"SparkListenerTaskEnd","Stage ID":1,"Task Info":{"Task ID":5}}`).(*TaskEnd)
	if ev.Task.PartitionID != -1 || ev.Metrics != nil || ev.ExecutorMetrics != nil || ev.Task.Accumulables != nil {
		t.Errorf("defaults: %+v", ev)
	}
	ev = decodeOK(t, `{"Event":"SparkListenerTaskEnd","Task Info":{"Partition ID":null},"Task Metrics":null}`).(*TaskEnd)
	if ev.Task.PartitionID != -1 || ev.Metrics != nil {
		t.Errorf("nulls: %+v", ev)
	}
	ev = decodeOK(t, `{"Event":"SparkListenerTaskEnd","Task Metrics":{"Executor Run Time":5}}`).(*TaskEnd)
	if ev.Metrics == nil || ev.Metrics.HasExecutorCPUTime || ev.Metrics.ExecutorRunTime != 5 {
		t.Errorf("Spark 2.0 metrics: %+v", ev.Metrics)
	}
	ev = decodeOK(t, `{"Event":"SparkListenerTaskEnd","Task Metrics":{"Executor CPU Time":0}}`).(*TaskEnd)
	if !ev.Metrics.HasExecutorCPUTime {
		t.Error("HasExecutorCPUTime must be true when the key is present, even at 0")
	}
	sql := decodeOK(t, `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":4}`).(*SQLExecutionStart)
	if sql.RootExecutionID != -1 || sql.Plan != nil {
		t.Errorf("SQLExecutionStart defaults: %+v", sql)
	}
}

func TestDecodeLineNumbersAsStrings(t *testing.T) {
	ev := decodeOK(t, `{"Event":"SparkListenerTaskEnd","Stage ID":"3","Task Info":{"Task ID":"-9223372036854775808","Launch Time":"0042"}}`).(*TaskEnd)
	if ev.StageID != 3 || ev.Task.TaskID != -9223372036854775808 || ev.Task.LaunchTime != 42 {
		t.Errorf("got %+v", ev)
	}
	ev = decodeOK(t, `{"Event":"SparkListenerTaskEnd","Task Info":{"Task ID":9223372036854775807}}`).(*TaskEnd)
	if ev.Task.TaskID != 9223372036854775807 {
		t.Errorf("max int64: %d", ev.Task.TaskID)
	}
}

func TestDecodeLineAccumulableValues(t *testing.T) {
	ev := decodeOK(t, `{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[`+
		`{"ID":1,"Update":3,"Value":4},`+
		`{"ID":2,"Update":"5","Value":"6"},`+
		`{"ID":3,"Value":7},`+
		`{"ID":4,"Update":[{"Block ID":"broadcast_0","Status":{"Memory Size":1}}],"Value":[]},`+
		`{"ID":5,"Update":"00:00:00.010","Value":"00:00:00.020"},`+
		`{"ID":6,"Update":1.5,"Value":2},`+
		`{"ID":7,"Update":99999999999999999999,"Value":1},`+
		`{"ID":8}]}}`).(*TaskEnd)
	type num struct {
		upd, val         int64
		hasUpdate, isNum bool
	}
	want := []num{{3, 4, true, true}, {5, 6, true, true}, {0, 7, false, true}, {0, 0, true, false},
		{0, 0, true, false}, {0, 0, true, false}, {0, 0, true, false}, {0, 0, false, false}}
	for i, a := range ev.Task.Accumulables {
		if got := (num{a.Update, a.Value, a.HasUpdate, a.Numeric}); got != want[i] {
			t.Errorf("accumulable %d: got %+v, want %+v", a.ID, got, want[i])
		}
	}
}

func TestDecodeLineEscapes(t *testing.T) {
	ev := decodeOK(t, `{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[`+
		`{"ID":1,"Name":"quote\" back\\ slash\/ \u00e9 \ud83d\ude00 \t\n"},`+
		`{"ID":2,"Name":"lone \ud800 high, lone \udc00 low, \ud800\u0041"}]},`+
		`"Stage\u0020ID":6}`).(*TaskEnd)
	if got, want := ev.Task.Accumulables[0].Name, "quote\" back\\ slash/ é 😀 \t\n"; got != want {
		t.Errorf("name = %q, want %q", got, want)
	}
	if got, want := ev.Task.Accumulables[1].Name, "lone \uFFFD high, lone \uFFFD low, \uFFFDA"; got != want {
		t.Errorf("name = %q, want %q", got, want)
	}
	if ev.StageID != 6 {
		t.Errorf("escaped key not matched: StageID = %d", ev.StageID)
	}
}

func TestDecodeLineLongString(t *testing.T) {
	long := strings.Repeat("abcdefghij", 1<<20) // 10 MiB
	ev := decodeOK(t, `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":1,"physicalPlanDescription":"`+long+`\u00e9"}`)
	if got := ev.(*SQLExecutionStart).PhysicalPlanDescription; got != long+"é" {
		t.Errorf("long string: got %d bytes, want %d", len(got), len(long)+2)
	}
}

func TestDecodeLineEventNotFirst(t *testing.T) {
	ev := decodeOK(t, ` {"Stage ID":3,"Event":"SparkListenerTaskEnd","Task Info":{"Task ID":8}} `).(*TaskEnd)
	if ev.StageID != 3 || ev.Task.TaskID != 8 {
		t.Errorf("got %+v", ev)
	}
	o := decodeOK(t, `{"x":[1,{"y":null}],"Event":"SparkListenerSomethingNew"}`)
	if o.EventType() != "SparkListenerSomethingNew" {
		t.Errorf("type %q", o.EventType())
	}
}

func TestDecodeLineTrailingWhitespace(t *testing.T) {
	for _, l := range []string{"\r", " ", " \r", "\t \r"} {
		ev, err := DecodeLine([]byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}` + l))
		if err != nil || ev.(*LogStart).SparkVersion != "3.5.1" {
			t.Errorf("suffix %q: %v %v", l, ev, err)
		}
	}
}

func TestDecodeLineEnvironmentMaps(t *testing.T) {
	ev := decodeOK(t, `{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Version":"17"},`+
		`"Spark Properties":[["spark.master","yarn"],["spark.app.name","x"]],"System Properties":{},`+
		`"Hadoop Properties":{"a":"b"},"Classpath Entries":{"/x.jar":"System Classpath"}}`).(*EnvironmentUpdate)
	if ev.JVMInformation["Java Version"] != "17" || ev.SparkProperties["spark.master"] != "yarn" ||
		ev.SparkProperties["spark.app.name"] != "x" || len(ev.SystemProperties) != 0 {
		t.Errorf("got %+v", ev)
	}
}

// TestDecodeLineDoesNotAlias overwrites the input after decoding.
func TestDecodeLineDoesNotAlias(t *testing.T) {
	line := []byte(`{"Event":"SparkListenerTaskEnd","Task Type":"ResultTask","Task Info":{"Executor ID":"driver-unique-9f2","Host":"host-77",` +
		`"Accumulables":[{"ID":1,"Name":"unique-name-31337","Metadata":"sql"}]},"Task End Reason":{"Reason":"TaskKilled","Kill Reason":"k"}}`)
	ev, err := DecodeLine(line)
	if err != nil {
		t.Fatal(err)
	}
	for i := range line {
		line[i] = 'x'
	}
	te := ev.(*TaskEnd)
	if te.Task.ExecutorID != "driver-unique-9f2" || te.Task.Host != "host-77" || te.TaskType != "ResultTask" ||
		te.Task.Accumulables[0].Name != "unique-name-31337" || te.Reason.KillReason != "k" {
		t.Errorf("event changed with its input: %+v", te)
	}
	o, err := DecodeLine([]byte(`{"Event":"SparkListenerUnpersistRDD","RDD ID":3}`))
	if err != nil || o.EventType() != "SparkListenerUnpersistRDD" {
		t.Fatalf("%v %v", o, err)
	}
}

// TestDecodeLineErrors checks the message and exact column of each error.
func TestDecodeLineErrors(t *testing.T) {
	deep := `{"Event":"X","a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`
	deepPlan := `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","sparkPlanInfo":` +
		strings.Repeat(`{"children":[`, 600) + strings.Repeat(`]}`, 600) + `}`
	cases := []struct {
		name, line string
		column     int
		syntax     bool
		msg        string
	}{
		{"empty", ``, 1, true, "unexpected end of input"},
		{"not an object", `[1]`, 1, true, "unexpected '['"},
		{"truncated", `{"Event":"SparkListenerJobEnd","Job ID":1`, 42, true, "unexpected end of input"},
		{"truncated in string", `{"Event":"SparkListenerJobEnd","Job Result":{"Result":"JobSu`, 61, true, "unexpected end of input in string"},
		{"truncated Other", `{"Event":"SparkListenerUnpersistRDD","RDD ID":`, 47, true, "unexpected end of input"},
		{"bad escape", `{"Event":"SparkListenerLogStart","Spark Version":"3.\q"}`, 53, true, `invalid escape 'q'`},
		{"bad \\u escape", `{"Event":"SparkListenerLogStart","Spark Version":"\u12G4"}`, 55, true, `invalid hex digit 'G'`},
		{"bad escape in Other", `{"Event":"Custom","a":"\x"}`, 24, true, `invalid escape 'x'`},
		{"control character", "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3\t\"}", 52, true, "unexpected byte 0x09 in string"},
		{"trailing garbage", `{"Event":"SparkListenerLogStart","Spark Version":"3"} x`, 55, true, "unexpected 'x' after the end"},
		{"two objects", `{"Event":"A"}{"Event":"B"}`, 14, true, "unexpected '{' after the end"},
		{"NaN", `{"Event":"SparkListenerJobEnd","Job ID":NaN}`, 41, true, "unexpected 'N'"},
		{"NaN in Other", `{"Event":"Custom","v":NaN}`, 23, true, "unexpected 'N'"},
		{"leading zero", `{"Event":"SparkListenerJobEnd","Job ID":01}`, 42, true, "leading zero"},
		{"bare minus", `{"Event":"SparkListenerJobEnd","Job ID":-}`, 42, true, "unexpected '}' in number"},
		{"missing colon", `{"Event":"SparkListenerJobEnd","Job ID" 1}`, 41, true, "unexpected '1', expected ':'"},
		{"trailing comma", `{"Event":"SparkListenerJobEnd","Job ID":1,}`, 43, true, "unexpected '}', expected a string key"},
		{"trailing comma in array", `{"Event":"SparkListenerJobStart","Stage IDs":[1,]}`, 49, true, "unexpected ']'"},
		{"bad literal", `{"Event":"SparkListenerTaskEnd","Task Info":{"Failed":tru}}`, 58, true, "unexpected '}'"},
		{"nesting 10000", deep, 1017, true, "nesting deeper than 1000 levels"},
		{"plan nesting", deepPlan, 92 + 13*500, true, "nesting deeper than 1000 levels"},
		{"no Event", `{"a":1}`, 1, false, `no "Event" key`},
		{"duplicate Event", `{"Event":"SparkListenerJobEnd","Event":"X"}`, 40, false, `duplicate "Event" key`},
		{"duplicate Event in Other", `{"Event":"A","Event":"B"}`, 22, false, `duplicate "Event" key`},
		{"duplicate Event, slow path", `{"Job ID":1,"Event":"A","Event":"B"}`, 33, false, `duplicate "Event" key`},
		{"Event not a string", `{"Event":1}`, 10, false, `key "Event": expected string, found number`},
		{"string for int", `{"Event":"SparkListenerTaskEnd","Stage ID":"x"}`, 44, false, `SparkListenerTaskEnd: key "Stage ID": expected integer, found string`},
		{"fraction for int", `{"Event":"SparkListenerTaskEnd","Stage ID":1.5}`, 44, false, `key "Stage ID": expected integer, found number`},
		{"int out of range", `{"Event":"SparkListenerTaskEnd","Stage ID":9223372036854775808}`, 44, false, `integer out of range for key "Stage ID"`},
		{"number for string", `{"Event":"SparkListenerTaskEnd","Task Info":{"Host":5}}`, 53, false, `key "Host": expected string, found number`},
		{"string for bool", `{"Event":"SparkListenerTaskEnd","Task Info":{"Failed":"false"}}`, 55, false, `key "Failed": expected boolean, found string`},
		{"array for object", `{"Event":"SparkListenerTaskEnd","Task Metrics":[]}`, 48, false, `key "Task Metrics": expected object, found array`},
		{"object for array", `{"Event":"SparkListenerJobStart","Stage IDs":{}}`, 46, false, `key "Stage IDs": expected array, found object`},
		{"bad pair", `{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":[["a"]]}`, 63, false, `expected a [key, value] pair`},
		{"bad accum update", `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates","accumUpdates":[[1,2,3]]}`, 94, false, `expected an [id, value] pair`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := DecodeLine([]byte(c.line))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, %v; want a *DecodeError", ev, err)
			}
			if ev != nil {
				t.Errorf("event %v returned with an error", ev)
			}
			if de.Column != c.column || de.Syntax != c.syntax || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %q (column %d, syntax %v); want column %d, syntax %v, containing %q",
					err, de.Column, de.Syntax, c.column, c.syntax, c.msg)
			}
			// encoding/json allows 10000 levels (Jackson and this decoder
			// 1000) and keeps the last of duplicate keys.
			refAccepts := c.name == "plan nesting" || strings.HasPrefix(c.name, "duplicate Event")
			if _, werr := refDecode([]byte(c.line)); (werr == nil) != refAccepts {
				t.Errorf("the reference decoder's error: %v", werr)
			}
		})
	}
}

// TestDecoderReuse decodes lines of different types with one Decoder and
// checks no state leaks from one line to the next.
func TestDecoderReuse(t *testing.T) {
	d := NewDecoder()
	a := `{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[{"ID":1},{"ID":2}]},"Task Executor Metrics":{"a":1}}`
	for i := 0; i < 3; i++ {
		if _, err := d.Decode([]byte(`{"Event":"SparkListenerJobEnd","Job ID":x}`)); err == nil {
			t.Fatal("bad line accepted")
		}
		ev, err := d.Decode([]byte(a))
		if err != nil {
			t.Fatal(err)
		}
		te := ev.(*TaskEnd)
		if len(te.Task.Accumulables) != 2 || len(te.ExecutorMetrics) != 1 {
			t.Fatalf("round %d: %+v", i, te)
		}
	}
}

func TestDecodeLineResourceProfile(t *testing.T) {
	ev := decodeOK(t, `{"Event":"SparkListenerResourceProfileAdded","Resource Profile Id":2,`+
		`"Executor Resource Requests":{"cores":{"Resource Name":"cores","Amount":4,"Discovery Script":"","Vendor":""}},`+
		`"Task Resource Requests":{"cpus":{"Resource Name":"cpus","Amount":0.5},"gpu":{"Amount":"2"}}}`).(*ResourceProfileAdded)
	if ev.ID != 2 || ev.ExecutorResources["cores"].Amount != 4 || ev.TaskResources["cpus"] != 0.5 || ev.TaskResources["gpu"] != 2 {
		t.Errorf("got %+v", ev)
	}
	for _, bad := range []string{`"Inf"`, `"-Inf"`, `"0x1p3"`, `" 1"`, `1e999`} {
		line := `{"Event":"SparkListenerResourceProfileAdded","Task Resource Requests":{"cpus":{"Amount":` + bad + `}}}`
		if _, err := DecodeLine([]byte(line)); err == nil {
			t.Errorf("amount %s accepted", bad)
		}
	}
}

// Databricks logs carry their Spark version only in this event (line from
// nds_q88_photon_db_13_3.zstd in the shared logs).
func TestDecodeDatabricksMetadata(t *testing.T) {
	ev, err := DecodeLine([]byte(`{"Event":"DBCEventLoggingListenerMetadata","Spark Version":"3.4.1","Timestamp":1726763400187,"Rollover Number":1,"SparkContext Id":411376891126053670}`))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := ev.(*DatabricksMetadata)
	if !ok || m.SparkVersion != "3.4.1" || m.Timestamp != 1726763400187 || m.RolloverNumber != 1 {
		t.Errorf("got %#v", ev)
	}
	if ev.EventType() != "DBCEventLoggingListenerMetadata" {
		t.Errorf("type %q", ev.EventType())
	}
}

// TestDecoderMetricNamesAcrossLines: one Decoder remembers the last metric
// map's names; maps that repeat them, stop short, reorder them, repeat a
// key or break off with an error give what a fresh Decoder gives.
func TestDecoderMetricNamesAcrossLines(t *testing.T) {
	line := func(metrics string) string {
		return `{"Event":"SparkListenerTaskEnd","Task Info":{"Task ID":1},"Task Executor Metrics":{` + metrics + `}}`
	}
	lines := []string{
		line(`"a":1,"b":2,"c":3`),
		line(`"a":4,"b":5,"c":6`),
		line(`"a":7,"b":8`),
		line(`"a":1,"b":2,"a":9,"d":4`),
		line(`"b":1,"a":2,"c":3`),
		line(`"b":1,"a":2,"c":x`),
		line(`"b":5,"a":6,"c":7,"b":8`),
		line(`"b\u0061":1,"a":2`),
		line(``),
	}
	d := NewDecoder()
	for _, l := range lines {
		got, gotErr := d.Decode([]byte(l))
		want, wantErr := NewDecoder().Decode([]byte(l))
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, fresh decoder %v", l, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", l, got, want)
		}
	}
	ev, err := d.Decode([]byte(lines[3]))
	if err != nil {
		t.Fatal(err)
	}
	if m := ev.(*TaskEnd).ExecutorMetrics; !reflect.DeepEqual(m, []NamedValue{{"a", 9}, {"b", 2}, {"d", 4}}) {
		t.Errorf("repeated key: got %+v", m)
	}
}
