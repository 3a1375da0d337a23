package inorder

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Results reach use in index order even when later ones finish first:
// here every item but the last waits for the one after it.
func TestForEachInOrderKeepsTheOrder(t *testing.T) {
	const n = 16
	finished := make([]chan struct{}, n)
	for i := range finished {
		finished[i] = make(chan struct{})
	}
	var got []int
	Each(n, n, n, func(i int) int {
		if i+1 < n {
			select {
			case <-finished[i+1]:
			case <-time.After(time.Minute):
				t.Errorf("item %d: item %d never finished", i, i+1)
			}
		}
		close(finished[i])
		return i * i
	}, func(i, r int) bool {
		if r != i*i {
			t.Errorf("item %d got result %d", i, r)
		}
		got = append(got, i)
		return true
	})
	for i, v := range got {
		if v != i {
			t.Fatalf("use saw the items in the order %v", got)
		}
	}
	if len(got) != n {
		t.Errorf("use saw %d items, want %d", len(got), n)
	}
}

// No more than ahead results wait for use, and once use says stop no
// further work starts; Each returns only when its goroutines
// have ended (the race detector and the counters would see a straggler).
func TestForEachInOrderBoundsAndStops(t *testing.T) {
	for _, tc := range []struct{ n, workers, ahead, stopAt int }{
		{n: 200, workers: 4, ahead: 4, stopAt: -1},
		{n: 200, workers: 3, ahead: 7, stopAt: -1},
		{n: 200, workers: 1, ahead: 0, stopAt: -1},
		{n: 200, workers: 4, ahead: 8, stopAt: 10},
		{n: 3, workers: 8, ahead: 0, stopAt: -1},
	} {
		t.Run(fmt.Sprintf("n%d-workers%d-ahead%d-stop%d", tc.n, tc.workers, tc.ahead, tc.stopAt), func(t *testing.T) {
			var mu sync.Mutex
			started, used, maxAhead := 0, 0, 0
			var running, maxRunning atomic.Int64
			Each(tc.n, tc.workers, tc.ahead, func(i int) int {
				r := running.Add(1)
				defer running.Add(-1)
				for m := maxRunning.Load(); r > m && !maxRunning.CompareAndSwap(m, r); m = maxRunning.Load() {
				}
				mu.Lock()
				started++
				maxAhead = max(maxAhead, started-used)
				mu.Unlock()
				return i
			}, func(i, _ int) bool {
				mu.Lock()
				used++
				mu.Unlock()
				return i != tc.stopAt
			})
			if running.Load() != 0 {
				t.Errorf("%d items still running after Each returned", running.Load())
			}
			if w := int64(max(1, min(tc.workers, tc.n))); maxRunning.Load() > w {
				t.Errorf("%d items ran at once, want at most %d", maxRunning.Load(), w)
			}
			if limit := max(tc.ahead, min(tc.workers, tc.n)); maxAhead > limit {
				t.Errorf("%d items started before use took them, want at most %d", maxAhead, limit)
			}
			if tc.stopAt < 0 {
				if started != tc.n || used != tc.n {
					t.Errorf("%d started, %d used, want %d each", started, used, tc.n)
				}
				return
			}
			if used != tc.stopAt+1 {
				t.Errorf("use called %d times after asking to stop at item %d", used, tc.stopAt)
			}
			if limit := tc.stopAt + 1 + max(tc.ahead, tc.workers); started > limit {
				t.Errorf("%d items started, want at most %d once use said stop", started, limit)
			}
		})
	}
	Each(0, 4, 4, func(int) int { t.Error("work on no item"); return 0 }, func(int, int) bool { return true })
}
