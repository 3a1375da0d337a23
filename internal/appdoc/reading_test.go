package appdoc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Logs are decoded in parallel only where cores would otherwise idle: a
// pool smaller than the cores, or the last logs, fewer than the cores.
func TestDecodeWorkersChoice(t *testing.T) {
	for _, c := range []struct {
		remaining, workers, cores, want int
	}{
		{40, 2, 2, 1},  // two logs at once on two cores: one goroutine each
		{2, 2, 2, 1},   // the other worker still has a log to read
		{1, 2, 2, 0},   // the last log: the other core soon idles
		{40, 1, 2, 0},  // --parallel 1 on two cores
		{40, 1, 1, 0},  // one core: the reader decodes on one goroutine anyway
		{3, 4, 4, 0},   // fewer logs left than cores
		{10, 4, 4, 1},  // every core busy with a log
		{10, 8, 4, 1},  // more workers than cores
		{1, 1, 1, 0},   // a single log: the reader chooses by size
		{100, 3, 4, 0}, // --parallel 3 on four cores
	} {
		if got := decodeWorkers(c.remaining, c.workers, c.cores); got != c.want {
			t.Errorf("decodeWorkers(remaining %d, workers %d, cores %d) = %d, want %d", c.remaining, c.workers, c.cores, got, c.want)
		}
	}
}

// Reading hears of each log once, before it is read, and its done is
// called once the document is prepared: what it counts in flight is what
// the workers hold, never more logs than --parallel.
func TestReadingCountsLogsInFlight(t *testing.T) {
	data, err := os.ReadFile(testkit.Events(t, "local-1426533911241"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const n, parallel = 12, 3
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("local-%02d", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	inFlight, most := map[string]bool{}, 0
	started, ended := map[string]int{}, map[string]int{}
	opt := Options{Analysis: analysis.DefaultConfig(), Parallel: parallel, Warn: func(string) {},
		Reading: func(l sparklog.Log) func() {
			mu.Lock()
			defer mu.Unlock()
			started[l.Path]++
			inFlight[l.Path] = true
			most = max(most, len(inFlight))
			return func() {
				mu.Lock()
				defer mu.Unlock()
				ended[l.Path]++
				delete(inFlight, l.Path)
			}
		},
		Sink: &Sink{
			Prepare: func(d Doc) (any, error) {
				mu.Lock()
				defer mu.Unlock()
				if !inFlight[d.Log] {
					return nil, fmt.Errorf("%s prepared after its reading was said done", d.Log)
				}
				return nil, nil
			},
			Emit: func(any) error { return nil },
		},
	}
	sum, err := ReadAll(context.Background(), []string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Apps != n {
		t.Fatalf("%d applications read, want %d", sum.Apps, n)
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("local-%02d", i))
		if started[p] != 1 || ended[p] != 1 {
			t.Errorf("%s: reading started %d times, done %d times; want once each", p, started[p], ended[p])
		}
	}
	if len(inFlight) != 0 || most < 1 || most > parallel {
		t.Errorf("%d logs left in flight, at most %d at once; want none left and 1 to %d at once", len(inFlight), most, parallel)
	}
}
