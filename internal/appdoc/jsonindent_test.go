package appdoc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/jsonindent"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// sameJSON checks that jsonindent writes a document as encoding/json
// does, indented as an element of analyze's output array.
func sameJSON(t *testing.T, name string, doc *Doc) {
	t.Helper()
	want, err := json.MarshalIndent(doc, "  ", "  ")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := jsonindent.Append(nil, doc, "  ", "  ")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: jsonindent differs from encoding/json at byte %d of %d: %.200q, want %.200q", name, i, len(want), got[i:], want[i:])
	}
}

// Every shared log's document (the nds_q72/q88 giants aside), with fixed
// intervals and with stage borders, is written as encoding/json writes it.
func TestJSONIndentOnSharedLogs(t *testing.T) {
	root := testkit.Events(t)
	var logs []sparklog.Log
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == root || !d.IsDir() {
			return err
		}
		found, err := sparklog.Discover(path)
		if err == nil {
			logs = append(logs, found...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	top, err := sparklog.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	logs = append(logs, top...)
	n := 0
	for _, l := range logs {
		if strings.Contains(l.Path, "nds_q") { // 48 and 142 MB of JSON: analyze's own check covers them
			continue
		}
		for _, borders := range []bool{false, true} {
			cfg := analysis.DefaultConfig()
			cfg.StageBorders = borders
			doc, err := Read(context.Background(), l, cfg, nil)
			if err != nil {
				continue // unreadable on purpose (broken logs): nothing to write
			}
			sameJSON(t, fmt.Sprintf("%s (stage borders %v)", l.Path, borders), &doc)
			n++
		}
	}
	if n < 40 {
		t.Errorf("compared %d documents, want the shared logs' (at least 40)", n)
	}
}

// An application with thousands of executors: the executor arrays, the
// stages' executor maps and the intervals' spill are long.
func TestJSONIndentManyExecutors(t *testing.T) {
	a := analysis.New(analysis.DefaultConfig())
	t0 := int64(1_700_000_000_000)
	a.Add(&sparkevent.ApplicationStart{AppName: "many <&>", AppID: "app-many", Timestamp: t0})
	const n = 3000
	for i := range n {
		id := fmt.Sprint(i + 1)
		if i%500 == 7 {
			id = fmt.Sprintf("exec-é-%d", i) // not numeric, not ASCII
		}
		a.Add(&sparkevent.ExecutorAdded{Timestamp: t0 + 1000 + int64(i), ExecutorID: id, Host: "h", TotalCores: 1 + i%3})
		info := sparkevent.StageInfo{StageID: i % 3, NumTasks: n, SubmissionTime: t0 + 5000}
		if i < 3 {
			a.Add(&sparkevent.StageSubmitted{Stage: info})
		}
		ti := sparkevent.TaskInfo{TaskID: int64(i), Index: i, LaunchTime: t0 + 6000 + int64(i), ExecutorID: id}
		a.Add(&sparkevent.TaskStart{StageID: i % 3, Task: ti})
		ti.FinishTime = ti.LaunchTime + 1000 + int64(i%17)*100
		a.Add(&sparkevent.TaskEnd{StageID: i % 3, Reason: sparkevent.TaskEndReason{Reason: "Success"}, Task: ti,
			Metrics: &sparkevent.TaskMetrics{ExecutorRunTime: 900, ExecutorCPUTime: int64(i) * 1e6, HasExecutorCPUTime: true, MemoryBytesSpilled: int64(i%7) << 20}})
	}
	a.Add(&sparkevent.ApplicationEnd{Timestamp: t0 + 20_000})
	doc := Doc{Report: a.Report(), Log: "many", Events: map[string]int64{"x": 1}, Problems: []sparklog.Problem{}}
	if len(doc.Executors) != n || len(doc.Stages[0].ExecutorSummary) != n/3 {
		t.Fatalf("%d executors, %d in stage 0", len(doc.Executors), len(doc.Stages[0].ExecutorSummary))
	}
	sameJSON(t, "many executors", &doc)
}

// Random documents: every field of every type a document holds.
func TestJSONIndentRandomDocs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range 50 {
		v, ok := quick.Value(reflect.TypeFor[Doc](), rng)
		if !ok {
			t.Fatal("quick.Value cannot make a Doc")
		}
		doc := v.Interface().(Doc)
		sameJSON(t, fmt.Sprintf("random doc %d", i), &doc)
	}
}
