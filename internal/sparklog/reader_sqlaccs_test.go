package sparklog

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestSQLAccumulablesOnly: with Options.SQLAccumulablesOnly a read gives
// the events of a full read with only the "sql" entries left in every
// Accumulables list (nil when none is), on both paths, on every shared log
// but the biggest.
func TestSQLAccumulablesOnly(t *testing.T) {
	dropped := 0
	for _, log := range sharedLogs(t) {
		if isBigLog(t, log) {
			continue
		}
		rel, _ := filepath.Rel(testkit.Events(t), log.Path)
		t.Run(rel, func(t *testing.T) {
			for _, workers := range []int{1, 3} {
				full := Options{workers: 1}
				sqlOnly := Options{workers: workers, chunkBytes: 100_003, SQLAccumulablesOnly: true}
				compareReadsWith(t, log, full, sqlOnly, func(ev Event) {
					dropped += keepSQLAccumulables(reflect.ValueOf(ev))
				})
			}
		})
	}
	if dropped == 0 {
		t.Fatal("no accumulable was dropped: the shared logs have internal.metrics ones")
	}
}

// keepSQLAccumulables filters, in place, every []Accumulable reachable
// from v and returns how many entries it removed.
func keepSQLAccumulables(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return keepSQLAccumulables(v.Elem())
		}
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += keepSQLAccumulables(v.Field(i))
		}
		return n
	case reflect.Slice:
		if list, ok := v.Interface().([]Accumulable); ok {
			var kept []Accumulable
			for _, a := range list {
				if a.Metadata == "sql" {
					kept = append(kept, a)
				}
			}
			v.Set(reflect.ValueOf(kept))
			return len(list) - len(kept)
		}
		n := 0
		for i := range v.Len() {
			n += keepSQLAccumulables(v.Index(i))
		}
		return n
	}
	return 0
}
