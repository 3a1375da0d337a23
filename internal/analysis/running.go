package analysis

// runningTasks holds the tasks started and not yet ended, by task id.
// Spark numbers an application's tasks from 0 in launch order, so the
// running ones are mostly a run of consecutive ids: those are kept in a
// slice starting at the lowest one still running (a map of a million
// running tasks cost about a second of lookups at 1M executors), any other
// id in a map. The slice stays within about twice the running tasks, so an
// old task that never ends (a streaming receiver) sends the later ids to
// the map rather than growing the slice with the application.
type runningTasks struct {
	base   int64 // the id of win[0]
	win    []runningSlot
	inWin  int // slots of win that are on
	others map[int64]runningTask
}

type runningSlot struct {
	t  runningTask
	on bool
}

// winSlack is how far beyond twice the running tasks the slice may reach.
const winSlack = 1024

func (r *runningTasks) len() int { return r.inWin + len(r.others) }

// slot is id's place in win, or nil when id is outside it.
func (r *runningTasks) slot(id int64) *runningSlot {
	if i := id - r.base; id >= r.base && i < int64(len(r.win)) {
		return &r.win[i]
	}
	return nil
}

func (r *runningTasks) get(id int64) (runningTask, bool) {
	if s := r.slot(id); s != nil && s.on {
		return s.t, true
	}
	t, ok := r.others[id]
	return t, ok
}

// put adds or replaces id's task.
func (r *runningTasks) put(id int64, t runningTask) {
	if len(r.win) == 0 && id >= 0 {
		r.base = id
	}
	if s := r.slot(id); s == nil && id >= r.base && id-r.base < 2*int64(r.len()+1)+winSlack {
		for int64(len(r.win)) <= id-r.base {
			r.win = append(r.win, runningSlot{})
		}
	}
	s := r.slot(id)
	if s == nil {
		if r.others == nil {
			r.others = map[int64]runningTask{}
		}
		r.others[id] = t
		return
	}
	if len(r.others) > 0 {
		delete(r.others, id) // put there before the slice reached it
	}
	if !s.on {
		r.inWin++
	}
	*s = runningSlot{t: t, on: true}
}

// del removes id's task, if running.
func (r *runningTasks) del(id int64) {
	if s := r.slot(id); s != nil && s.on {
		*s = runningSlot{}
		r.inWin--
		for len(r.win) > 0 && !r.win[0].on {
			r.win = r.win[1:]
			r.base++
		}
	}
	if len(r.others) > 0 {
		delete(r.others, id)
	}
}

// each calls f with every running task, in no particular order.
func (r *runningTasks) each(f func(runningTask)) {
	for i := range r.win {
		if r.win[i].on {
			f(r.win[i].t)
		}
	}
	for _, t := range r.others {
		f(t)
	}
}
