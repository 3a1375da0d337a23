package sparkevent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// One decoder reads task lines whose keys follow, then leave, the order of
// the line before: every line must decode as the reference decodes it.
func TestDecoderKeyOrderAcrossLines(t *testing.T) {
	const info = `"Task Info":{"Task ID":7,"Index":3,"Attempt":0,"Partition ID":3,"Launch Time":100,"Executor ID":"1","Host":"h","Locality":"NODE_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":250,"Failed":false,"Killed":false,"Accumulables":[]}`
	const metrics = `"Task Metrics":{"Executor Deserialize Time":5,"Executor Run Time":100,"Executor CPU Time":90000000,"Result Size":10,"JVM GC Time":1,"Shuffle Read Metrics":{"Remote Blocks Fetched":1,"Local Blocks Fetched":2,"Fetch Wait Time":3,"Remote Bytes Read":4,"Local Bytes Read":5,"Total Records Read":6},"Shuffle Write Metrics":{"Shuffle Bytes Written":7,"Shuffle Write Time":8,"Shuffle Records Written":9},"Input Metrics":{"Bytes Read":10,"Records Read":11},"Output Metrics":{"Bytes Written":12,"Records Written":13}}`
	head := `{"Event":"SparkListenerTaskEnd","Stage ID":1,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},`
	lines := []string{
		head + info + `,` + metrics + `}`,
		head + info + `,` + metrics + `}`, // the same: every key predicted
		head + metrics + `,` + info + `}`, // two objects swapped
		head + strings.Replace(info, `"Index":3,"Attempt":0`, `"Attempt":1,"Index":4`, 1) + `,` + metrics + `}`,
		head + strings.Replace(info, `"Host":"h",`, ``, 1) + `,` + metrics + `}`,                                    // a key missing
		head + strings.Replace(info, `"Host":"h",`, `"Host":"h","Extra":{"a":[1]},`, 1) + `,` + metrics + `}`,       // one more
		head + strings.Replace(info, `"Index":3`, `"In\u0064ex":5`, 1) + `,` + metrics + `}`,                        // escaped key
		head + strings.Replace(info, `"Index":3`, `"Index" : 6`, 1) + `,` + metrics + `}`,                           // whitespace
		head + strings.Replace(info, `"Index":3`, `"Indexes":3,"Index":8`, 1) + `,` + metrics + `}`,                 // a longer key first
		head + strings.Replace(info, `"Index":3`, `"Index":3,"Index":9`, 1) + `,` + metrics + `}`,                   // repeated: last wins
		head + info + `,` + strings.Replace(metrics, `"Shuffle Write Time":8`, `"Shuffle Write Time":"8"`, 1) + `}`, // quoted number
		head + info + `,` + metrics + `}`,
	}
	d := NewDecoder()
	for i, line := range lines {
		got, err := d.Decode([]byte(line))
		want, werr := refDecode([]byte(line))
		if err != nil || werr != nil {
			t.Fatalf("line %d: error %v, reference error %v", i, err, werr)
		}
		if diff := eventtest.FirstDiff(got.EventType(), reflect.ValueOf(got), reflect.ValueOf(want)); diff != "" {
			t.Errorf("line %d: %s", i, diff)
		}
	}
}
