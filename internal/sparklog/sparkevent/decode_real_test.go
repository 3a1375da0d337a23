package sparkevent

import (
	"bytes"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// TestDecodeLineMatchesReference decodes every line of every plain real log
// and a sample of the zstd ones with both decoders, field by field, and
// checks that together the logs exercise every field of every typed event;
// then again as Options.SQLUpdatesOnly decodes them.
func TestDecodeLineMatchesReference(t *testing.T) {
	cov := coverage{}
	check := func(rel string, n int, line []byte) {
		got, err := DecodeLine(line)
		want, werr := refDecode(line)
		if err != nil || werr != nil {
			t.Errorf("%s:%d: DecodeLine error %v, reference error %v", rel, n, err, werr)
			return
		}
		if d := eventtest.FirstDiff(got.EventType(), reflect.ValueOf(got), reflect.ValueOf(want)); d != "" {
			t.Errorf("%s:%d: fast vs reference: %s", rel, n, d)
		}
		cov.add(reflect.ValueOf(got))
		// As a reader feeding the analysis decodes it.
		got, err = decodePooled(line, true)
		eventtest.AsSQLUpdates(reflect.ValueOf(want))
		if err != nil {
			t.Errorf("%s:%d: with SQL updates only: %v", rel, n, err)
			return
		}
		if d := eventtest.FirstDiff(got.EventType(), reflect.ValueOf(got), reflect.ValueOf(want)); d != "" {
			t.Errorf("%s:%d: fast with SQL updates only vs reference: %s", rel, n, d)
		}
		cov.add(reflect.ValueOf(got))
	}
	lines := 0
	for _, rel := range plainLogs(t) {
		r := eventtest.LogReader(t, rel)
		eachLine(t, r, func(n int, line []byte) { lines++; check(rel, n, line) })
		r.Close()
	}
	// In the zstd logs, check every line but TaskStart/TaskEnd, and every
	// 16th of those, to keep encoding/json's time down.
	for _, rel := range zstdLogs(t) {
		if rel == badLog {
			continue
		}
		r := eventtest.LogReader(t, rel)
		tasks := 0
		eachLine(t, r, func(n int, line []byte) {
			if bytes.HasPrefix(line, []byte(`{"Event":"SparkListenerTask`)) {
				if tasks++; tasks%16 != 0 {
					return
				}
			}
			lines++
			check(rel, n, line)
		})
		r.Close()
	}
	t.Logf("compared %d lines", lines)
	if lines < 10000 {
		t.Errorf("only %d lines compared; the shared logs hold far more", lines)
	}
	cov.requireAll(t)
}

// coverage records which fields of the event structs (by declaring type,
// e.g. "StageInfo.AttemptID") were non-zero at least once, so the
// comparison is known to reach them.
type coverage map[string]bool

func (c coverage) add(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			c.add(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.IsZero() && !(f.Kind() == reflect.Slice && f.Len() == 0) {
				c[v.Type().Name()+"."+v.Type().Field(i).Name] = true
			}
			c.add(f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			c.add(v.Index(i))
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			c.add(it.Value())
		}
	}
}

// zeroInRealLogs lists the fields that no shared log sets to a non-zero
// value; TestDecodeLineEveryFieldSet covers them with hand-written lines.
var zeroInRealLogs = map[string]bool{
	"ApplicationEnd.ExitCode":                  true, // no real log has "ExitCode" (written since Spark 3.5)
	"ApplicationEnd.HasExitCode":               true,
	"StageInfo.AttemptID":                      true, // no stage was retried in these runs
	"StageExecutorMetrics.StageAttemptID":      true, // no stage was retried in these runs
	"TaskEnd.StageAttemptID":                   true,
	"TaskStart.StageAttemptID":                 true,
	"TaskInfo.GettingResultTime":               true, // no result was fetched remotely
	"ShuffleReadMetrics.RemoteBytesReadToDisk": true,
	"SQLExecutionEnd.ErrorMessage":             true,
	"ExecutorExcludedForStage.StageID":         true, // every exclusion in them is from stage 0.0
	"ExecutorExcludedForStage.StageAttemptID":  true,
	"NodeExcludedForStage.StageID":             true,
	"NodeExcludedForStage.StageAttemptID":      true,
	// The two streaming logs: unnamed queries, no watermark, Spark 3.1
	// (no operator names), no latestOffset, stopped cleanly.
	"StreamingQueryStarted.Name":          true,
	"StreamingQueryProgress.Name":         true,
	"StreamingQueryProgress.Watermark":    true,
	"StreamingQueryProgress.HasWatermark": true,
	"StateOperatorProgress.OperatorName":  true,
	"SourceProgress.LatestOffset":         true,
	"StreamingQueryTerminated.Exception":  true,
}

func (c coverage) requireAll(t *testing.T) {
	t.Helper()
	var missing []string
	for _, p := range allFields() {
		if !c[p] && !zeroInRealLogs[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("fields never non-zero in the real logs (%d):\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// typedEvents is one value of each typed event.
var typedEvents = []Event{&LogStart{}, &ApplicationStart{}, &ApplicationEnd{}, &EnvironmentUpdate{},
	&ResourceProfileAdded{}, &ExecutorAdded{}, &ExecutorRemoved{}, &BlockManagerAdded{}, &BlockManagerRemoved{},
	&JobStart{}, &JobEnd{}, &StageSubmitted{}, &StageCompleted{}, &TaskStart{}, &TaskEnd{},
	&StageExecutorMetrics{}, &SQLExecutionStart{}, &SQLExecutionEnd{}, &SQLAdaptiveExecutionUpdate{}, &DriverAccumUpdates{},
	&StreamingQueryStarted{}, &StreamingQueryProgress{}, &StreamingQueryTerminated{},
	// The real logs have only the pre-3.1 names.
	&ExecutorExcludedForStage{Legacy: true}, &NodeExcludedForStage{Legacy: true}}

// allFields lists "Type.Field" for every struct reachable from the events.
func allFields() []string {
	seen := map[reflect.Type]bool{}
	var out []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			out = append(out, t.Name()+"."+t.Field(i).Name)
			walk(t.Field(i).Type)
		}
	}
	for _, ev := range typedEvents {
		walk(reflect.TypeOf(ev))
	}
	sort.Strings(out)
	return out
}

// TestDecodeLineMalformedRealLog checks the one deliberately corrupted line
// of a real log is reported with its column, and no other line is.
func TestDecodeLineMalformedRealLog(t *testing.T) {
	r := eventtest.LogReader(t, badLog)
	defer r.Close()
	var bad []int
	eachLine(t, r, func(n int, line []byte) {
		_, err := DecodeLine(line)
		if err == nil {
			return
		}
		bad = append(bad, n)
		var de *DecodeError
		if !errors.As(err, &de) || !de.Syntax {
			t.Errorf("line %d: want a syntax *DecodeError, got %v", n, err)
			return
		}
		// The EnvironmentUpdate line has a stray '_' where a key's quote
		// belongs: byte 43 (checked by hand with Python's json module).
		if de.Column != 43 || !strings.Contains(err.Error(), "unexpected '_'") {
			t.Errorf("line %d: %v; want column 43, unexpected '_'", n, err)
		}
		t.Logf("line %d: %v", n, err)
	})
	if len(bad) != 1 {
		t.Errorf("lines with errors: %v, want exactly one", bad)
	}
}

// TestDecodeLineConcurrent decodes a real log from several goroutines at
// once (sharing pooled decoders) and checks each result against a
// sequential decode; run with -race.
func TestDecodeLineConcurrent(t *testing.T) {
	r := eventtest.LogReader(t, "local-1642039451826")
	var lines [][]byte
	eachLine(t, r, func(_ int, line []byte) { lines = append(lines, bytes.Clone(line)) })
	r.Close()
	want := make([]Event, len(lines))
	for i, l := range lines {
		ev, err := NewDecoder().Decode(l)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want[i] = ev
	}
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		go func() {
			msg := ""
			for i := range lines {
				k := (i + g*len(lines)/4) % len(lines) // each goroutine starts elsewhere
				ev, err := DecodeLine(lines[k])
				if err != nil {
					msg = err.Error()
					break
				}
				if d := eventtest.FirstDiff("", reflect.ValueOf(ev), reflect.ValueOf(want[k])); d != "" {
					msg = d
					break
				}
			}
			errs <- msg
		}()
	}
	for g := 0; g < 4; g++ {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
}
