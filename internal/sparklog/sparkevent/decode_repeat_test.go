package sparkevent

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// One decoder reads task lines whose sub-objects repeat the line before's,
// then change inside, around or after them: every line decodes as the
// reference decodes it (or fails where it fails), and a repeated value is
// taken from the line before rather than read again.
func TestDecoderRepeatsAcrossLines(t *testing.T) {
	const reason = `"Task End Reason":{"Reason":"Success"}`
	const peaks = `"Task Executor Metrics":{"JVMHeapMemory":0,"JVMOffHeapMemory":0,"TotalGCTime":0}`
	const metrics = `"Task Metrics":{"Executor Run Time":100,"Shuffle Read Metrics":{"Remote Blocks Fetched":0,"Local Blocks Fetched":0,"Push Based Shuffle":{"Merged Fetch Fallback Count":0}},"Shuffle Write Metrics":{"Shuffle Bytes Written":0,"Shuffle Write Time":0,"Shuffle Records Written":0},"Input Metrics":{"Bytes Read":0,"Records Read":0},"Output Metrics":{"Bytes Written":0,"Records Written":0},"Updated Blocks":[]}`
	head := `{"Event":"SparkListenerTaskEnd","Stage ID":1,"Stage Attempt ID":0,"Task Type":"ResultTask",`
	line := func(r, p, m string) string { return head + r + `,` + p + `,` + m + `}` }
	cases := []struct {
		name, line string
		ok         bool
	}{
		{"first", line(reason, peaks, metrics), true},
		{"same", line(reason, peaks, metrics), true},
		{"peak changed", line(reason, strings.Replace(peaks, `"TotalGCTime":0`, `"TotalGCTime":7`, 1), metrics), true},
		{"peak back", line(reason, peaks, metrics), true},
		{"one more key at the end", line(reason, strings.Replace(peaks, `}`, `,"MinorGCCount":1}`, 1), metrics), true},
		{"one key fewer", line(reason, strings.Replace(peaks, `,"TotalGCTime":0`, ``, 1), metrics), true},
		{"shuffle read changed", line(reason, peaks, strings.Replace(metrics, `"Local Blocks Fetched":0`, `"Local Blocks Fetched":3`, 1)), true},
		{"only the skipped part changed", line(reason, peaks, strings.Replace(metrics, `Count":0`, `Count":9`, 1)), true},
		{"write, input, output changed", line(reason, peaks, strings.NewReplacer(`"Shuffle Write Time":0`, `"Shuffle Write Time":5`, `"Records Read":0`, `"Records Read":2`, `"Records Written":0`, `"Records Written":4`).Replace(metrics)), true},
		{"same again", line(reason, peaks, metrics), true},
		{"whitespace before a value", line(strings.Replace(reason, `:{`, `: {`, 1), strings.Replace(peaks, `:{`, ` :{`, 1), metrics), true},
		{"reason changed", line(`"Task End Reason":{"Reason":"TaskKilled","Kill Reason":"stage cancelled"}`, peaks, metrics), true},
		{"null metrics", line(reason, `"Task Executor Metrics":null`, `"Task Metrics":null`), true},
		{"null again", line(reason, `"Task Executor Metrics":null`, `"Task Metrics":null`), true},
		{"repeated key: the last wins", line(reason, peaks+`,`+strings.Replace(peaks, `"JVMHeapMemory":0`, `"JVMHeapMemory":12`, 1), metrics), true},
		{"same, then broken after", line(reason, peaks, metrics)[:len(line(reason, peaks, metrics))-1] + `,}`, false},
		{"same prefix, object not closed", head + reason + `,` + strings.TrimSuffix(peaks, `}`), false},
		{"same value, then garbage", line(reason, `"Task Executor Metrics":nullx`, metrics), false},
		{"last", line(reason, peaks, metrics), true},
	}
	d := NewDecoder()
	var last *TaskEnd
	for _, tc := range cases {
		got, err := d.Decode([]byte(tc.line))
		want, werr := refDecode([]byte(tc.line))
		if (err == nil) != tc.ok || (werr == nil) != tc.ok {
			t.Fatalf("%s: error %v, reference error %v, want ok=%v", tc.name, err, werr, tc.ok)
		}
		if !tc.ok {
			continue
		}
		if diff := eventtest.FirstDiff(got.EventType(), reflect.ValueOf(got), reflect.ValueOf(want)); diff != "" {
			t.Errorf("%s: %s", tc.name, diff)
		}
		end := got.(*TaskEnd)
		if tc.name == "same" || tc.name == "same again" {
			if &end.ExecutorMetrics[0] != &last.ExecutorMetrics[0] {
				t.Errorf("%s: the executor metrics were read again instead of taken from the line before", tc.name)
			}
		}
		last = end
	}
}

// One decoder reads task lines whose accumulables follow, then leave, the
// shapes of the line before's (same ID, name, flags and metadata around
// new values): every line decodes as the reference decodes it, also as
// SQL updates, or fails where the reference fails.
func TestAccumulableShapesAcrossLines(t *testing.T) {
	acc := func(id int, name, upd, val, tail string) string {
		return `{"ID":` + fmt.Sprint(id) + `,"Name":"` + name + `","Update":` + upd + `,"Value":` + val + tail + `}`
	}
	const sql = `,"Internal":true,"Count Failed Values":true,"Metadata":"sql"`
	const internal = `,"Internal":true,"Count Failed Values":true`
	list := func(entries ...string) string {
		return `{"Event":"SparkListenerTaskEnd","Stage ID":1,"Task Info":{"Task ID":1,"Accumulables":[` + strings.Join(entries, ",") + `]}}`
	}
	a := acc(10, "number of output rows", `"5"`, `"105"`, sql)
	b := acc(11, "internal.metrics.executorRunTime", `7`, `70`, internal)
	cases := []struct {
		name, line string
		ok         bool
	}{
		{"first", list(a, b), true},
		{"new values", list(acc(10, "number of output rows", `"6"`, `"111"`, sql), acc(11, "internal.metrics.executorRunTime", `8`, `78`, internal)), true},
		{"longer values", list(acc(10, "number of output rows", `"123456789012"`, `"-98765432109876"`, sql), b), true},
		{"quoted becomes plain", list(acc(10, "number of output rows", `5`, `105`, sql), b), true},
		{"not an integer", list(acc(10, "number of output rows", `"1.5"`, `"105"`, sql), acc(11, "internal.metrics.executorRunTime", `7.0`, `70`, internal)), true},
		{"a fraction after the digits", list(acc(10, "number of output rows", `"5"`, `105.5`, sql), b), true},
		{"other id", list(acc(12, "number of output rows", `"5"`, `"105"`, sql), b), true},
		{"other name", list(acc(10, "number of files", `"5"`, `"105"`, sql), b), true},
		{"other name, same length", list(acc(10, "number of output rowz", `"5"`, `"105"`, sql), b), true},
		{"back to the name", list(a, b), true},
		{"name longer", list(acc(10, "number of output rows!", `"5"`, `"105"`, sql), b), true},
		{"flags differ", list(acc(10, "number of output rows", `"5"`, `"105"`, `,"Internal":false,"Count Failed Values":true,"Metadata":"sql"`), b), true},
		{"metadata gone", list(acc(10, "number of output rows", `"5"`, `"105"`, internal), b), true},
		{"metadata other", list(acc(10, "number of output rows", `"5"`, `"105"`, `,"Internal":true,"Count Failed Values":true,"Metadata":"sqlx"`), b), true},
		{"swapped", list(b, a), true},
		{"back", list(a, b), true},
		{"no update", list(`{"ID":10,"Name":"number of output rows","Value":"105"`+sql+`}`, b), true},
		{"back again", list(a, b), true},
		{"shorter", list(a), true},
		{"longer", list(a, b, a, b), true},
		{"escaped name", list(acc(10, `number of output \u0072ows`, `"5"`, `"105"`, sql), b), true},
		{"whitespace", list(strings.Replace(a, `"Update":`, `"Update": `, 1), b), true},
		{"same head, value cut", list(`{"ID":10,"Name":"number of output rows","Update":"5`, b), false},
		{"same head, tail cut", list(acc(10, "number of output rows", `"5"`, `"105"`, `,"Internal":true`)+`,"Count Failed`, b), false},
		{"same head and values, tail broken", list(strings.Replace(a, `"sql"}`, `"sql"]`, 1), b), false},
		{"last", list(a, b), true},
	}
	for _, sqlOnly := range []bool{false, true} {
		d := NewDecoder()
		d.SQLUpdatesOnly = sqlOnly
		for _, tc := range cases {
			got, err := d.Decode([]byte(tc.line))
			want, werr := refDecode([]byte(tc.line))
			if (err == nil) != tc.ok || (werr == nil) != tc.ok {
				t.Fatalf("%s (SQL updates only %v): error %v, reference error %v, want ok=%v", tc.name, sqlOnly, err, werr, tc.ok)
			}
			if !tc.ok {
				continue
			}
			if sqlOnly {
				eventtest.AsSQLUpdates(reflect.ValueOf(want))
			}
			if diff := eventtest.FirstDiff(got.EventType(), reflect.ValueOf(got), reflect.ValueOf(want)); diff != "" {
				t.Errorf("%s (SQL updates only %v): %s", tc.name, sqlOnly, diff)
			}
		}
	}
}
