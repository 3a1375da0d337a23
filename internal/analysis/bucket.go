package analysis

import (
	"slices"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// contrib is what one ended task spreads over its [launch, finish) time.
type contrib struct {
	cpu, serde, shuffle, gc, task float64 // seconds
	memSpill, diskSpill           float64 // bytes
	stage                         int32
	exec                          int32
}

// bucket accumulates the values of one interval.
type bucket struct {
	cpu, serde, shuffle, gc, task float64
	stages                        []int32 // sorted, unique
	spill                         []spillCell
	spillAt                       map[int32]int // exec → index in spill, once spill is long
}

// spillIndexFrom is how many spill cells a bucket scans before it keeps
// an index: an interval where thousands of executors spill must not cost
// a scan of them all per task.
const spillIndexFrom = 16

type spillCell struct {
	exec      int32
	mem, disk float64
}

func (b *bucket) add(c *contrib, f float64) {
	b.cpu += c.cpu * f
	b.serde += c.serde * f
	b.shuffle += c.shuffle * f
	b.gc += c.gc * f
	b.task += c.task * f
	if i, found := slices.BinarySearch(b.stages, c.stage); !found {
		b.stages = slices.Insert(b.stages, i, c.stage)
	}
	if c.memSpill != 0 || c.diskSpill != 0 {
		b.addSpill(c.exec, c.memSpill*f, c.diskSpill*f)
	}
}

func (b *bucket) addSpill(exec int32, mem, disk float64) {
	if i, ok := b.spillIndex(exec); ok {
		b.spill[i].mem += mem
		b.spill[i].disk += disk
		return
	}
	if b.spillAt != nil {
		b.spillAt[exec] = len(b.spill)
	}
	b.spill = append(b.spill, spillCell{exec, mem, disk})
}

// spillIndex finds exec's spill cell: by scanning while there are few,
// by an index built once there are many.
func (b *bucket) spillIndex(exec int32) (int, bool) {
	if b.spillAt == nil && len(b.spill) >= spillIndexFrom {
		b.spillAt = make(map[int32]int, 2*len(b.spill))
		for i, c := range b.spill {
			b.spillAt[c.exec] = i
		}
	}
	if b.spillAt != nil {
		i, ok := b.spillAt[exec]
		return i, ok
	}
	for i := range b.spill {
		if b.spill[i].exec == exec {
			return i, true
		}
	}
	return 0, false
}

// merge adds o into b.
func (b *bucket) merge(o *bucket) {
	b.cpu += o.cpu
	b.serde += o.serde
	b.shuffle += o.shuffle
	b.gc += o.gc
	b.task += o.task
	for _, s := range o.stages {
		if i, found := slices.BinarySearch(b.stages, s); !found {
			b.stages = slices.Insert(b.stages, i, s)
		}
	}
	for _, s := range o.spill {
		b.addSpill(s.exec, s.mem, s.disk)
	}
}

func (b *bucket) empty() bool {
	return len(b.stages) == 0 && len(b.spill) == 0 && b.task == 0
}

// spreadTask turns a task end into its contribution and spreads it.
func (a *App) spreadTask(e *sparkevent.TaskEnd, exec int32) {
	launch, finish := e.Task.LaunchTime, e.Task.FinishTime
	if finish < launch { // unfinished or clock trouble: treat as instantaneous
		finish = launch
	}
	sums := taskSumsOf(launch, finish, e.Metrics)
	if m := e.Metrics; m != nil && m.HasExecutorCPUTime {
		a.hasCPUTime = true
	}
	c := contrib{
		cpu: sums.Time[TaskTimeCPU], serde: sums.Time[TaskTimeSerde], shuffle: sums.Time[TaskTimeShuffle],
		gc: sums.Time[TaskTimeGC], task: sums.Time[TaskTimeRun],
		memSpill: sums.MemorySpill, diskSpill: sums.DiskSpill,
		stage: int32(e.StageID),
		exec:  exec,
	}
	a.addExecutorTask(c.exec, &sums)
	a.totals.add(&c)
	a.timeline.taskEnded(e.StageID, launch, finish)
	a.timeline.spread(launch, finish, c)
}

// Totals are the sums over all spread tasks (for checks and summaries).
type Totals struct {
	CPUSeconds        float64 `json:"cpuSeconds"`
	SerdeSeconds      float64 `json:"serdeSeconds"`
	ShuffleSeconds    float64 `json:"shuffleSeconds"`
	GCSeconds         float64 `json:"gcSeconds"`
	TaskSeconds       float64 `json:"taskSeconds"`
	MemoryBytesSpill  float64 `json:"memoryBytesSpilled"`
	DiskBytesSpill    float64 `json:"diskBytesSpilled"`
	AvailableCoreSecs float64 `json:"availableCoreSeconds"`
	Tasks             int64   `json:"tasks"`
}

func (t *Totals) add(c *contrib) {
	t.CPUSeconds += c.cpu
	t.SerdeSeconds += c.serde
	t.ShuffleSeconds += c.shuffle
	t.GCSeconds += c.gc
	t.TaskSeconds += c.task
	t.MemoryBytesSpill += c.memSpill
	t.DiskBytesSpill += c.diskSpill
	t.Tasks++
}
