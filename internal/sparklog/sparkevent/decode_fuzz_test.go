package sparkevent

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// FuzzDecodeLine checks DecodeLine never panics, accepts only valid JSON,
// agrees with the reference decoder whenever it accepts, and reports
// errors inside the line. Seeds: the shortest real line of each event type
// in the shared logs, plus hand-written edge cases; `go test` runs them.
func FuzzDecodeLine(f *testing.F) {
	for _, line := range seedLines(f) {
		f.Add(line)
	}
	for _, s := range []string{
		`{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[{"ID":1,"Name":"a\"\\\u00e9\ud83d\ude00","Update":"5","Value":[1]}]}}`,
		`{"Stage ID":"3","Event":"SparkListenerTaskEnd","Task Metrics":null}`,
		`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":[["a","b"]]}`,
		`{"Event":"X","a":[[[[{}]]]],"b":-0.5e+3}`,
		`{"Event":"SparkListenerJobEnd","Job ID":01}`,
		`{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[{"ID":8,"Name":"rows","Update":"1","Value":"16","Internal":true,"Count Failed Values":true,"Metadata":"sql"},{"ID":8,"Name":"rows","Update":2,"Value":18,"Internal":false,"Count Failed Values":false}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeLine(line)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Column < 1 || de.Column > len(line)+1 {
				t.Fatalf("error %v (%T) outside the line of %d bytes", err, err, len(line))
			}
			if ev != nil {
				t.Fatal("an event returned with an error")
			}
			return
		}
		if !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		if !utf8.Valid(line) {
			return // encoding/json rewrites invalid UTF-8; this decoder keeps the bytes
		}
		want, werr := refDecode(line)
		if werr != nil {
			t.Fatalf("accepted a line the reference rejects (%v): %q", werr, line)
		}
		if d := eventtest.FirstDiff(ev.EventType(), reflect.ValueOf(ev), reflect.ValueOf(want)); d != "" {
			t.Fatalf("fast vs reference: %s\nline %q", d, line)
		}
	})
}

// seedLines returns the shortest line of each event type found in the
// plain shared logs.
func seedLines(t testing.TB) [][]byte {
	shortest := map[string][]byte{}
	for _, rel := range plainLogs(t) {
		r := eventtest.LogReader(t, rel)
		eachLine(t, r, func(_ int, line []byte) {
			var head struct{ Event string }
			if json.Unmarshal(line, &head) != nil {
				return
			}
			if old, ok := shortest[head.Event]; !ok || len(line) < len(old) {
				shortest[head.Event] = bytes.Clone(line)
			}
		})
		r.Close()
	}
	var out [][]byte
	for _, ev := range typedEvents {
		line, ok := shortest[ev.EventType()]
		if !ok && ev.EventType() == TypeStreamingQueryTerminated {
			// Only the zstd streaming log has one; its hand-written twin.
			line, ok = []byte(streamingTerminatedFailed), true
		}
		if !ok {
			t.Fatalf("no real line of type %s to seed the fuzzer", ev.EventType())
		}
		out = append(out, line)
		delete(shortest, ev.EventType())
	}
	for _, line := range shortest { // untyped events
		out = append(out, line)
	}
	return out
}

// FuzzDecodeAfterLine checks what a Decoder carries from one line to the
// next (predicted keys, repeated sub-objects, accumulable shapes, name
// caches): the second line, decoded right after the first by the same
// Decoder, is accepted exactly when the reference accepts it and decodes
// as the reference decodes it, with all accumulables or as SQL updates.
func FuzzDecodeAfterLine(f *testing.F) {
	seeds := seedLines(f)
	for i, line := range seeds {
		f.Add(line, line, false)
		f.Add(seeds[(i+1)%len(seeds)], line, true)
	}
	f.Fuzz(func(t *testing.T, first, second []byte, sqlOnly bool) {
		d := NewDecoder()
		d.SQLUpdatesOnly = sqlOnly
		d.Decode(first) // whatever it gives, only what it leaves behind matters
		ev, err := d.Decode(second)
		if !json.Valid(second) || !utf8.Valid(second) {
			if err == nil && !json.Valid(second) {
				t.Fatalf("accepted invalid JSON %q after %q", second, first)
			}
			return
		}
		want, werr := refDecode(second)
		if (err == nil) != (werr == nil) {
			t.Fatalf("error %v, reference error %v, for %q after %q", err, werr, second, first)
		}
		if err != nil {
			return
		}
		if sqlOnly {
			eventtest.AsSQLUpdates(reflect.ValueOf(want))
		}
		if d := eventtest.FirstDiff(ev.EventType(), reflect.ValueOf(ev), reflect.ValueOf(want)); d != "" {
			t.Fatalf("%s\nline %q after %q", d, second, first)
		}
	})
}
