package analysis

import (
	"math/rand/v2"
	"testing"
)

// A stage's executor places answer as a map would, for executors met in
// order, out of order, with high indices only, and negative ones; the
// slice stays within about twice the executors.
func TestExecPlacesActLikeAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for round := range 12 {
		var p execPlaces
		want := map[int32]int32{}
		lo := int32(rng.IntN(3) * 5000)
		for i := range 6000 {
			exec := lo + int32(i)
			switch rng.IntN(4) {
			case 0:
				exec = lo + int32(rng.IntN(20000))
			case 1:
				exec = int32(rng.IntN(200)) - 100
			}
			at, ok := p.get(exec)
			if w, in := want[exec]; ok != in || at != w {
				t.Fatalf("round %d: get(%d) = %d, %v; want %d, %v", round, exec, at, ok, w, in)
			}
			if !ok {
				want[exec] = int32(len(want))
				p.put(exec, want[exec])
			}
			if len(p.dense) > 2*len(want)+placesSlack {
				t.Fatalf("round %d: %d slots for %d executors", round, len(p.dense), len(want))
			}
		}
		for exec, w := range want {
			if at, ok := p.get(exec); !ok || at != w {
				t.Fatalf("round %d: get(%d) = %d, %v at the end; want %d", round, exec, at, ok, w)
			}
		}
	}
}
