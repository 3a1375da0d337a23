package analysis

// execPlaces finds a stage's entry for an executor by the executor's
// index. A stage's executors are mostly the application's first ones
// (indices are given in order of appearance), so low indices are kept in a
// slice (one map lookup per task end was 0.4 s at 1M executors), within
// about twice the stage's executors; any other index in a map, so a stage
// of a few late executors stays small.
type execPlaces struct {
	dense  []int32 // index → place + 1; 0 when absent
	n      int
	sparse map[int32]int32
}

// placesSlack is how far beyond twice its executors a stage's slice may
// reach.
const placesSlack = 64

func (p *execPlaces) get(exec int32) (int32, bool) {
	if exec >= 0 && int(exec) < len(p.dense) {
		if v := p.dense[exec]; v != 0 {
			return v - 1, true
		}
	}
	at, ok := p.sparse[exec]
	return at, ok
}

// put records the place of an executor that get did not find.
func (p *execPlaces) put(exec, at int32) {
	p.n++
	if exec >= 0 && int(exec) < 2*p.n+placesSlack {
		for len(p.dense) <= int(exec) {
			p.dense = append(p.dense, 0)
		}
		p.dense[exec] = at + 1
		return
	}
	if p.sparse == nil {
		p.sparse = map[int32]int32{}
	}
	p.sparse[exec] = at
}
