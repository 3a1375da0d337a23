package sparklog

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestSQLUpdatesOnly: with Options.SQLUpdatesOnly a read gives the events
// of a full read with every Accumulables list replaced by the SQL updates
// of its entries (nil when none is one), on both paths, on every shared
// log but the biggest.
func TestSQLUpdatesOnly(t *testing.T) {
	var dropped, kept int
	for _, log := range sharedLogs(t) {
		if isBigLog(t, log) {
			continue
		}
		rel, _ := filepath.Rel(testkit.Events(t), log.Path)
		t.Run(rel, func(t *testing.T) {
			for _, workers := range []int{1, 3} {
				full := Options{workers: 1}
				updatesOnly := Options{workers: workers, chunkBytes: 100_003, SQLUpdatesOnly: true}
				compareReadsWith(t, log, full, updatesOnly, func(ev Event) {
					d, k := asSQLUpdates(reflect.ValueOf(ev))
					dropped, kept = dropped+d, kept+k
				})
			}
		})
	}
	if dropped == 0 || kept == 0 {
		t.Fatalf("%d accumulables dropped, %d kept as SQL updates: the shared logs have both kinds", dropped, kept)
	}
}

// asSQLUpdates replaces, in place, the Accumulables of every struct
// reachable from v that has them by their SQL updates, and returns how
// many entries were dropped and how many kept.
func asSQLUpdates(v reflect.Value) (dropped, kept int) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return asSQLUpdates(v.Elem())
		}
	case reflect.Struct:
		if accs, updates := v.FieldByName("Accumulables"), v.FieldByName("SQLUpdates"); accs.IsValid() && updates.IsValid() {
			list := accs.Interface().([]Accumulable)
			var out []SQLUpdate
			for i := range list {
				if u, ok := list[i].SQLUpdate(); ok {
					out = append(out, u)
				}
			}
			accs.Set(reflect.Zero(accs.Type()))
			updates.Set(reflect.ValueOf(out))
			dropped, kept = len(list)-len(out), len(out)
		}
		for i := range v.NumField() {
			d, k := asSQLUpdates(v.Field(i))
			dropped, kept = dropped+d, kept+k
		}
	case reflect.Slice:
		for i := range v.Len() {
			d, k := asSQLUpdates(v.Index(i))
			dropped, kept = dropped+d, kept+k
		}
	}
	return dropped, kept
}

func TestAccumulableSQLUpdate(t *testing.T) {
	for _, tc := range []struct {
		a    Accumulable
		want SQLUpdate
		ok   bool
	}{
		{Accumulable{ID: 3, Name: "rows", Update: 5, Value: 9, HasUpdate: true, Numeric: true, Metadata: "sql"}, SQLUpdate{ID: 3, Update: 5, Value: 9, HasUpdate: true}, true},
		{Accumulable{ID: 4, Value: 7, Numeric: true, Metadata: "sql"}, SQLUpdate{ID: 4, Value: 7}, true}, // a stage's: no update
		{Accumulable{ID: 5, Numeric: false, Metadata: "sql"}, SQLUpdate{}, false},                        // not an integer
		{Accumulable{ID: 6, Update: 1, HasUpdate: true, Numeric: true}, SQLUpdate{}, false},              // internal.metrics
		{Accumulable{ID: 7, Update: 1, HasUpdate: true, Numeric: true, Metadata: "SQL"}, SQLUpdate{}, false},
	} {
		got, ok := tc.a.SQLUpdate()
		if got != tc.want || ok != tc.ok {
			t.Errorf("%+v: got %+v, %v; want %+v, %v", tc.a, got, ok, tc.want, tc.ok)
		}
	}
}
