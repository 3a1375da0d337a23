// Package sparkevent turns one line of a Spark event log into a typed event
// (DecodeLine, Decoder): the event types the analysis needs, a JSON scanner
// of its own, and nothing about files, codecs or object stores, which are
// the readers' (package sparklog, which imports this one).
//
// Fields keep Spark's own units: CPU times (Executor CPU Time, Executor
// Deserialize CPU Time) and Shuffle Write Time are nanoseconds; run, GC,
// fetch-wait, deserialize and result-serialization times are milliseconds;
// timestamps are epoch milliseconds; sizes are bytes. Converting units is the
// analysis' job, never the decoder's.
//
// # Adding a Spark field
//
// A field Spark writes is named in four places; a new one is added to each,
// in this order (when the shared real logs carry the field,
// TestDecodeLineMatchesReference fails on a field forgotten in 2 or 3):
//
//  1. events.go: the field on its event or sub-object struct, its unit in a
//     comment, and Spark's key where the Go name differs from it
//     (`WriteTime int64 // "Shuffle Write Time", ns`). A flag beside it
//     (HasExecutorCPUTime) when an absent value must differ from 0.
//  2. The decoder of that object: a `case "<Spark key>":` in the key switch
//     of decode_task.go (Task Info, Task Metrics and their sub-objects),
//     decode_stage.go, decode_app.go, decode_sql.go or decode_streaming.go,
//     reading it with the helper of its JSON type (d.int64, d.text, d.istr
//     for strings that repeat, …). Key orders (decode_keyorder.go) and
//     repeated sub-objects (decode_repeat.go) learn keys by themselves and
//     need nothing.
//  3. The reference decoder in decode_oracle_test.go (refDecode), written
//     the slow, obvious way with encoding/json: decode_real_test.go compares
//     it with the fast one on every real log, so a field in 2 but not here
//     (or decoded differently) fails there. Add the key to the hand-written
//     lines of decode_test.go too, so that no log is needed to check it.
//  4. The analysis, if it uses the field: a task-metric counter goes into
//     taskMetricFields (internal/analysis/problems.go), which checks every
//     counter for negative values; then the sums or reports that show it.
//
// The synthetic logs of internal/simulate write task lines with Sprintf
// (simulate.go): add the key there when the simulator should produce it.
// A new event type is the same four steps with a Type constant and a case
// in decodeTyped (decode.go) and in refDecode's switch; lines of types not
// listed there decode to *Other.
package sparkevent
