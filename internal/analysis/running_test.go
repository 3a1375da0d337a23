package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The running tasks answer as a map would, whatever the ids: mostly
// increasing (Spark's), repeated starts, ends of tasks never started,
// negative and huge ids, and an old task that never ends while the ids
// run on (the slice must then not grow with them).
func TestRunningTasksActLikeAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 20 {
		var r runningTasks
		want := map[int64]runningTask{}
		next := int64(rng.IntN(3)) * 1000
		most := 0
		pinned := round%2 == 0
		if pinned {
			r.put(next, runningTask{launch: -1})
			want[next] = runningTask{launch: -1}
			next++
		}
		for i := range 20000 {
			var id int64
			switch k := rng.IntN(100); {
			case k < 45: // the next task starts
				id = next
				next++
			case k < 47:
				id = []int64{-7, math.MaxInt64, math.MinInt64, next + 1e9}[rng.IntN(4)]
			case k < 50: // ids skipped (tasks of another attempt's log, or lost events)
				next += int64(rng.IntN(4000))
				id = next
			default: // an earlier one (running or not) starts again or ends
				id = next - 1 - int64(rng.IntN(3000))
			}
			if k := rng.IntN(100); k < 55 {
				tk := runningTask{launch: int64(i), stage: stageKey{id: round}}
				r.put(id, tk)
				want[id] = tk
			} else {
				r.del(id)
				delete(want, id)
			}
			if _, in := want[id]; in {
				if got, ok := r.get(id); !ok || got != want[id] {
					t.Fatalf("round %d op %d: get(%d) = %v, %v; want %v", round, i, id, got, ok, want[id])
				}
			} else if _, ok := r.get(id); ok {
				t.Fatalf("round %d op %d: get(%d) found an ended task", round, i, id)
			}
			if r.len() != len(want) {
				t.Fatalf("round %d op %d: len %d, want %d", round, i, r.len(), len(want))
			}
			most = max(most, r.len())
			if len(r.win) > 2*(most+1)+winSlack {
				t.Fatalf("round %d op %d: the slice holds %d slots for at most %d running tasks", round, i, len(r.win), most)
			}
		}
		seen, launches, wantLaunches := 0, int64(0), int64(0)
		r.each(func(tk runningTask) { seen, launches = seen+1, launches+tk.launch })
		for _, tk := range want {
			wantLaunches += tk.launch
		}
		if seen != len(want) || launches != wantLaunches {
			t.Fatalf("round %d: each saw %d tasks launched at %d in all, want %d at %d", round, seen, launches, len(want), wantLaunches)
		}
		for id, tk := range want {
			if got, ok := r.get(id); !ok || got != tk {
				t.Fatalf("round %d: get(%d) = %v, %v at the end; want %v", round, id, got, ok, tk)
			}
		}
	}
}

// A task put in the map (too far beyond the slice) and started again once
// the slice has reached its id is one running task, not two.
func TestRunningTaskMovesIntoTheSlice(t *testing.T) {
	var r runningTasks
	r.put(0, runningTask{launch: 1})
	r.put(5000, runningTask{launch: 2}) // beyond the slice's reach: in the map
	r.del(0)
	r.put(4000, runningTask{launch: 3}) // the slice starts again at 4000
	r.put(5000, runningTask{launch: 4}) // now within it
	if got, ok := r.get(5000); !ok || got.launch != 4 || r.len() != 2 {
		t.Fatalf("get(5000) = %v, %v with %d running; want launch 4 with 2 running", got, ok, r.len())
	}
	r.del(5000)
	if _, ok := r.get(5000); ok || r.len() != 1 {
		t.Fatalf("5000 still running after its end (%d running)", r.len())
	}
}
