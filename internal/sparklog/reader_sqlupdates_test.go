package sparklog

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
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
			// One full read, compared item by item with both SQL-updates
			// reads (1 and 3 workers) at once.
			full := Options{workers: 1}
			var updatesOnly []Options
			for _, workers := range []int{1, 3} {
				updatesOnly = append(updatesOnly, Options{workers: workers, chunkBytes: 100_003, SQLUpdatesOnly: true})
			}
			compareReadsWithAll(t, log, full, updatesOnly, func(ev sparkevent.Event) {
				d, k := eventtest.AsSQLUpdates(reflect.ValueOf(ev))
				dropped, kept = dropped+d, kept+k
			})
		})
	}
	if dropped == 0 || kept == 0 {
		t.Fatalf("%d accumulables dropped, %d kept as SQL updates: the shared logs have both kinds", dropped, kept)
	}
}
