// Package simulate writes realistic synthetic Spark event logs: the JSON
// lines Spark 3.x writes, in its key order and units, for an application
// whose stages show the patterns sparkglance must detect (a healthy scan, a
// shuffle-bound stage, executor memory too small, data skew, a
// repartition(1) bottleneck, dynamic allocation, a stage retried after a
// shuffle fetch failure). It backs `sparkglance
// simulate`, the `make run` demo and tests that need logs of a chosen size.
//
// The generators: Generate and Write produce one application at once (with
// Config.StreamingBatches also two Structured Streaming queries); Live
// writes it as Spark does, paced against a Clock and flushed, finishing
// with the rename of the .inprogress file; WorkloadRuns plans a nightly
// job's series of runs with known regressions; GenerateFleet writes a
// History Server bucket of thousands of applications on all cores.
package simulate

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Config shapes the simulated application.
type Config struct {
	AppID            string
	AppName          string
	Start            time.Time
	Executors        int // initial executors
	CoresPerExecutor int
	// TasksPerStage scales every stage (the demo's stages use 4× the cores).
	TasksPerStage int
	// Repeat runs the whole scenario this many times (longer logs).
	Repeat int
	Seed   uint64
	// Live leaves the application unfinished: no ApplicationEnd.
	Live bool
	// StreamingBatches, when > 0, adds two Structured Streaming queries of
	// this many micro-batches each, one falling behind (streaming.go).
	StreamingBatches int
	// Properties are extra Spark properties of the environment.
	Properties map[string]string
	// SlowStage, when set, makes the stages whose name contains it
	// SlowFactor times slower (their tasks run that much longer).
	SlowStage  string
	SlowFactor float64
	// WorkScale multiplies every task's duration and bytes (the input
	// grown by that factor with proportional time); 0 means 1.
	WorkScale float64
	// StreamingAlongside starts those queries with the application's
	// executors and keeps them triggering batches beside the batch jobs
	// until the jobs end (StreamingBatches each at least), instead of
	// after the jobs: the live demo shows streaming from its first seconds.
	StreamingAlongside bool
}

// DefaultConfig is the demo application `make run` analyses.
func DefaultConfig() Config {
	return Config{
		AppID:            "app-20261130090000-0001",
		AppName:          "sparkglance demo: nightly sales rollup",
		Start:            time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
		Executors:        8,
		CoresPerExecutor: 4,
		TasksPerStage:    128,
		Repeat:           1,
		Seed:             42,
	}
}

// stageKind is the performance pattern a simulated stage shows.
type stageKind int

const (
	scanStage    stageKind = iota // CPU-bound, healthy
	shuffleStage                  // waits on shuffle fetch
	uniformSpill                  // every executor spills: memory too small
	skewedStage                   // one huge partition
	singleTask                    // repartition(1): one task, everything idle
	gcHeavyStage                  // GC pressure
)

type stageSpec struct {
	kind  stageKind
	name  string
	tasks int
	// fetchFails makes the stage's first attempt fail on a shuffle fetch
	// failure, so Spark reruns the lost map outputs of the previous stage
	// of the job and the stage again as attempt 1.
	fetchFails bool
}

// event is one line with the time it happened, for ordering.
type event struct {
	time int64
	seq  int
	line string
	// beside marks the events of streaming queries running beside the
	// batch jobs, which do not hold the jobs back (settle).
	beside bool
}

// Writer emits one application's events.
type writer struct {
	cfg       Config
	rng       *rand.Rand
	sink      Sink
	err       error
	now       int64 // epoch ms of the last event written
	jobID     int
	stgID     int
	tid       int64
	execs     []execState // every executor ever added, alive or not
	nextExec  int
	lineCount int
	// pending holds task events that happen after the line being written
	// (tasks of a failed stage attempt still running while the next attempt
	// starts); emit writes them first once their time has come.
	pending []event
	seq     int
	shuffle int // shuffle ids handed out
	// stream is the streaming queries running beside the batch jobs
	// (Config.StreamingAlongside), nil otherwise (streaming.go).
	stream *alongside
}

type execState struct {
	id    string
	host  string
	cores int
	busy  []int64 // per core: time it becomes free
	alive bool
}

// Sink receives the simulated lines in the order Spark would write them,
// each with the time it happens (epoch ms) and whether Spark flushes after it.
type Sink interface {
	Line(at int64, line string, flush bool) error
}

// WriteFile writes the complete synthetic event log of cfg into a new file
// at path (truncating one that is there); an error names path.
func WriteFile(path string, cfg Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = Write(f, cfg)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Write writes a complete synthetic event log to w as plain JSON lines and
// returns the number of lines written.
func Write(w io.Writer, cfg Config) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	n, err := Generate(cfg, writerSink{bw})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

type writerSink struct{ w *bufio.Writer }

func (s writerSink) Line(_ int64, line string, _ bool) error {
	s.w.WriteString(line)
	return s.w.WriteByte('\n')
}

// Limits of Config: far beyond any demo, low enough that a typo cannot ask
// for a log of terabytes or a scheduling loop of hours.
const (
	MaxExecutors     = 10_000
	MaxCores         = 1_024
	MaxTasksPerStage = 1_000_000
	MaxRepeat        = 10_000
	maxAppIDLen      = 200
)

// appIDPattern is what Spark's own ids look like (app-…, application_…,
// local-…); the id also names the live log's file, so no path separators.
var appIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Validate reports every setting Generate cannot honour, naming the
// command-line flag that sets it.
func (c Config) Validate() error {
	var errs []error
	between := func(flag string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Errorf("--%s=%d: want %d to %d", flag, v, lo, hi))
		}
	}
	between("executors", c.Executors, 1, MaxExecutors)
	between("cores", c.CoresPerExecutor, 1, MaxCores)
	between("tasks-per-stage", c.TasksPerStage, 1, MaxTasksPerStage)
	between("repeat", c.Repeat, 1, MaxRepeat)
	between("streaming-batches", c.StreamingBatches, 0, MaxStreamingBatches)
	if len(c.AppID) > maxAppIDLen || !appIDPattern.MatchString(c.AppID) {
		errs = append(errs, fmt.Errorf("--app-id=%q: want 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit (e.g. app-20261130090000-0001)", c.AppID, maxAppIDLen))
	}
	if !utf8.ValidString(c.AppName) {
		errs = append(errs, fmt.Errorf("app name %q is not valid UTF-8", c.AppName))
	}
	return errors.Join(errs...)
}

// Generate produces the simulated application's lines into sink and returns
// how many it produced.
func Generate(cfg Config, sink Sink) (int, error) {
	if cfg.Repeat == 0 {
		cfg.Repeat = 1 // the zero Config's meaning
	}
	if err := cfg.Validate(); err != nil {
		return 0, fmt.Errorf("simulate: %w", err)
	}
	s := &writer{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed)), sink: sink}
	s.now = cfg.Start.UnixMilli()
	s.header()
	base := s.now
	for i := 0; i < cfg.Executors; i++ {
		s.addExecutor(base + 2000 + int64(i)*150)
	}
	s.now += 4000
	if cfg.StreamingAlongside {
		s.startAlongside()
	}
	// A sink that failed (a live writer cancelled) ends the generation: the
	// remaining passes would only be computed to be thrown away.
	for r := 0; r < cfg.Repeat && s.err == nil; r++ {
		s.scenario()
	}
	if s.stream != nil {
		s.endAlongside()
	} else {
		s.streaming()
	}
	if !cfg.Live {
		s.now += 1500
		s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerApplicationEnd","Timestamp":%d}`, s.now))
	}
	return s.lineCount, s.err
}

// emit hands one line, stamped with the time it happens, to the sink,
// after the pending task events that happen no later.
func (s *writer) emit(at int64, line string) {
	s.emitPending(at)
	s.write(at, line)
}

func (s *writer) write(at int64, line string) {
	if s.err != nil {
		return
	}
	s.err = s.sink.Line(at, line, flushes(line))
	s.lineCount++
}

// later queues a task event for emit to write in time order.
func (s *writer) later(at int64, line string) {
	s.pending = append(s.pending, event{time: at, seq: s.seq, line: line})
	s.seq++
}

// emitPending writes the pending events that happen at or before until, in
// time order (queue order for equal times).
func (s *writer) emitPending(until int64) {
	s.streamUntil(until)
	slices.SortStableFunc(s.pending, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.seq, b.seq))
	})
	n := 0
	for n < len(s.pending) && s.pending[n].time <= until {
		s.write(s.pending[n].time, s.pending[n].line)
		n++
	}
	s.pending = slices.Delete(s.pending, 0, n)
}

// settle writes every pending event and moves the clock past the last.
// The batches of streaming queries running beside the jobs do not hold
// the jobs back: those ending later stay queued.
func (s *writer) settle() {
	for _, e := range s.pending {
		if !e.beside {
			s.now = max(s.now, e.time)
		}
	}
	s.emitPending(s.now)
}

// flushes tells whether Spark's EventLoggingListener flushes its stream after
// this event: it does for job, stage-completed, executor, block-manager and
// application events, not for task or stage-submitted ones.
func flushes(line string) bool {
	if streamingEvent(line) {
		return true
	}
	const prefix = `{"Event":"SparkListener`
	if !strings.HasPrefix(line, prefix) {
		return false
	}
	rest := line[len(prefix):]
	for _, t := range []string{"StageCompleted", "JobStart", "JobEnd", "BlockManagerAdded", "BlockManagerRemoved",
		"UnpersistRDD", "ApplicationStart", "ApplicationEnd", "ExecutorAdded", "ExecutorRemoved"} {
		if strings.HasPrefix(rest, t+`"`) {
			return true
		}
	}
	return false
}

func (s *writer) header() {
	c := s.cfg
	s.emit(s.now, `{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}`)
	s.emit(s.now, `{"Event":"SparkListenerResourceProfileAdded","Resource Profile Id":0,"Executor Resource Requests":{"cores":{"Resource Name":"cores","Amount":`+
		strconv.Itoa(c.CoresPerExecutor)+`,"Discovery Script":"","Vendor":""},"memory":{"Resource Name":"memory","Amount":4096,"Discovery Script":"","Vendor":""}},"Task Resource Requests":{"cpus":{"Resource Name":"cpus","Amount":1.0}}}`)
	s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerBlockManagerAdded","Block Manager ID":{"Executor ID":"driver","Host":"driver-0.sparkglance.local","Port":7079},"Maximum Memory":2101975449,"Timestamp":%d,"Maximum Onheap Memory":2101975449,"Maximum Offheap Memory":0}`, s.now+900))
	s.emit(s.now, `{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Home":"/usr/lib/jvm/java-17-openjdk-amd64","Java Version":"17.0.15 (Debian)","Scala Version":"version 2.12.18"},"Spark Properties":{"spark.app.name":`+
		strconv.Quote(c.AppName)+`,"spark.app.id":`+strconv.Quote(c.AppID)+`,"spark.master":"spark://master.sparkglance.local:7077","spark.executor.cores":"`+strconv.Itoa(c.CoresPerExecutor)+
		`","spark.executor.memory":"4g","spark.task.cpus":"1","spark.eventLog.enabled":"true","spark.submit.deployMode":"client"`+s.streamingProperties()+s.extraProperties()+`},"Hadoop Properties":{},"System Properties":{"java.vm.name":"OpenJDK 64-Bit Server VM"},"Metrics Properties":{},"Classpath Entries":{}}`)
	s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerApplicationStart","App Name":%s,"App ID":%s,"Timestamp":%d,"User":"spark"}`,
		strconv.Quote(c.AppName), strconv.Quote(c.AppID), s.now))
}

func (s *writer) addExecutor(at int64) {
	id := strconv.Itoa(s.nextExec + 1)
	s.nextExec++
	host := fmt.Sprintf("worker-%d.sparkglance.local", len(s.execs)%3+1)
	e := execState{id: id, host: host, cores: s.cfg.CoresPerExecutor, alive: true, busy: make([]int64, s.cfg.CoresPerExecutor)}
	for i := range e.busy {
		e.busy[i] = at + 500
	}
	s.execs = append(s.execs, e)
	s.emit(at, fmt.Sprintf(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":%q,"Executor Info":{"Host":%q,"Total Cores":%d,"Log Urls":{},"Attributes":{},"Resources":{},"Resource Profile Id":0,"Registration Time":%d}}`,
		at, id, host, e.cores, at))
	s.emit(at+200, fmt.Sprintf(`{"Event":"SparkListenerBlockManagerAdded","Block Manager ID":{"Executor ID":%q,"Host":%q,"Port":%d},"Maximum Memory":2101975449,"Timestamp":%d,"Maximum Onheap Memory":2101975449,"Maximum Offheap Memory":0}`,
		id, host, blockManagerPort(len(s.execs)-1), at+200))
	if at > s.now {
		s.now = at
	}
}

func (s *writer) removeExecutor(i int, at int64) {
	s.execs[i].alive = false
	s.emit(at, fmt.Sprintf(`{"Event":"SparkListenerExecutorRemoved","Timestamp":%d,"Executor ID":%q,"Removed Reason":"Executor killed by driver (dynamic allocation: idle)."}`, at, s.execs[i].id))
	s.emit(at, fmt.Sprintf(`{"Event":"SparkListenerBlockManagerRemoved","Block Manager ID":{"Executor ID":%q,"Host":%q,"Port":%d},"Timestamp":%d}`,
		s.execs[i].id, s.execs[i].host, blockManagerPort(i), at))
}

// scenario runs one pass of the demo's jobs.
func (s *writer) scenario() {
	n := s.cfg.TasksPerStage
	s.job([]stageSpec{{scanStage, "parquet scan at NightlyRollup.scala:42", n, false}, {shuffleStage, "groupBy at NightlyRollup.scala:57", n, false}})
	s.job([]stageSpec{{uniformSpill, "sortWithinPartitions at NightlyRollup.scala:71", n, false}})
	s.sqlExecution(s.jobID, "nightly rollup: join and aggregate", func() {
		s.job([]stageSpec{{skewedStage, "join at NightlyRollup.scala:88", n, false}})
	})
	s.job([]stageSpec{{gcHeavyStage, "collect_list at NightlyRollup.scala:95", n, false}})
	// A shuffle fetch fails: the reading stage is retried as attempt 1.
	s.job([]stageSpec{{scanStage, "parquet scan at NightlyRollup.scala:101", n, false}, {shuffleStage, "distinct at NightlyRollup.scala:104", n, true}})
	// Dynamic allocation releases half the executors before the single-file
	// write, never the first: the stage needs one to run on.
	for i := max(len(s.execs)/2, 1); i < len(s.execs); i++ {
		if s.execs[i].alive {
			s.removeExecutor(i, s.now+300)
		}
	}
	s.now += 400
	s.job([]stageSpec{{singleTask, "save at NightlyRollup.scala:120 (repartition(1))", 1, false}})
	base := s.now
	for i := 0; i < s.cfg.Executors/2; i++ {
		s.addExecutor(base + 500 + int64(i)*100)
	}
}

// job runs stages one after another as one Spark job. A stage that
// fetchFails is retried the way Spark's DAGScheduler does it: the failed
// attempt ends at its first fetch failure, the previous stage reruns the map
// outputs that could not be fetched, then the stage reruns its missing
// partitions as attempt 1.
func (s *writer) job(stages []stageSpec) {
	jobID := s.jobID
	s.jobID++
	first := s.stgID
	s.stgID += len(stages)
	s.now += 200
	var infos, ids []string
	for i, st := range stages {
		infos = append(infos, stageInfo(first+i, 0, st.name, st.tasks, 0, 0, ""))
		ids = append(ids, strconv.Itoa(first+i))
	}
	s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerJobStart","Job ID":%d,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[%s],"Properties":{"spark.job.description":"nightly rollup","spark.jobGroup.id":"rollup"}}`,
		jobID, s.now, join(infos), join(ids)))
	var mapOutputs map[int]taskOutcome // the previous stage's, read by the next one
	shuffleID := -1
	for i, st := range stages {
		var ff *fetchFailure
		if st.fetchFails && i > 0 {
			ff = newFetchFailure(shuffleID, mapOutputs, st.tasks)
		}
		done := s.stage(first+i, 0, st, allPartitions(st.tasks), ff)
		if ff != nil {
			s.now += 200 // Spark resubmits failed stages after a short delay
			s.stage(first+i-1, 1, stages[i-1], ff.lostMaps, nil)
			var missing []int
			for p := range st.tasks {
				if o, ok := done[p]; !ok || o.finish > s.now+20 {
					missing = append(missing, p)
				}
			}
			s.stage(first+i, 1, st, missing, nil)
		}
		if i < len(stages)-1 {
			shuffleID = s.shuffle
			s.shuffle++
		}
		mapOutputs = done
	}
	s.settle()
	s.now += 50
	s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`, jobID, s.now))
}

func allPartitions(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// taskOutcome is where and when a partition was computed.
type taskOutcome struct {
	exec   int // index in writer.execs
	taskID int64
	finish int64
}

// fetchFailure is a stage attempt's failure to fetch the shuffle output of
// one executor: the tasks at failingTasks fail with FetchFailed, and
// lostMaps are the map partitions Spark must compute again.
type fetchFailure struct {
	shuffleID    int
	exec         int
	mapOutputs   map[int]taskOutcome
	lostMaps     []int
	failingTasks map[int]bool // task indices in the attempt
}

// newFetchFailure makes the executor holding map partition 0's output
// unreachable for the second and third task of the reading stage (its only
// task when it has one).
func newFetchFailure(shuffleID int, mapOutputs map[int]taskOutcome, tasks int) *fetchFailure {
	ff := &fetchFailure{shuffleID: shuffleID, exec: mapOutputs[0].exec, mapOutputs: mapOutputs,
		failingTasks: map[int]bool{min(1, tasks-1): true}}
	if tasks > 2 {
		ff.failingTasks[2] = true
	}
	for p := range len(mapOutputs) {
		if o, ok := mapOutputs[p]; ok && o.exec == ff.exec {
			ff.lostMaps = append(ff.lostMaps, p)
		}
	}
	return ff
}

func stageInfo(id, attempt int, name string, tasks int, submitted, completed int64, failure string) string {
	extra := ""
	if submitted > 0 {
		extra += `,"Submission Time":` + strconv.FormatInt(submitted, 10)
	}
	if completed > 0 {
		extra += `,"Completion Time":` + strconv.FormatInt(completed, 10)
	}
	if failure != "" {
		extra += `,"Failure Reason":` + strconv.Quote(failure)
	}
	return fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":%d,"Stage Name":%q,"Number of Tasks":%d,"RDD Info":[],"Parent IDs":[],"Details":"org.apache.spark.sql.Dataset.collect(Dataset.scala:3421)"%s,"Accumulables":[],"Resource Profile Id":0}`,
		id, attempt, name, tasks, extra)
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += p
	}
	return out
}

// taskShape is one task's simulated metrics.
type taskShape struct {
	durMs                      int64
	cpuFrac, gcFrac, fetchFrac float64
	memSpill, diskSpill        int64
	shuffleRead, shuffleWrite  int64
	input                      int64
}

func (s *writer) shape(kind stageKind, index, tasks int) taskShape {
	jitter := func(base float64) int64 { return int64(base * (0.8 + 0.4*s.rng.Float64())) }
	switch kind {
	case shuffleStage:
		return taskShape{durMs: jitter(3000), cpuFrac: 0.35, gcFrac: 0.03, fetchFrac: 0.45, shuffleRead: jitter(48 << 20), shuffleWrite: jitter(8 << 20)}
	case uniformSpill:
		return taskShape{durMs: jitter(5000), cpuFrac: 0.55, gcFrac: 0.08, memSpill: jitter(900 << 20), diskSpill: jitter(310 << 20), shuffleRead: jitter(64 << 20)}
	case skewedStage:
		if index == tasks/3 {
			return taskShape{durMs: 60000, cpuFrac: 0.6, gcFrac: 0.05, memSpill: 6 << 30, diskSpill: 2 << 30, shuffleRead: 3 << 30}
		}
		// The other partitions spill a little too, so the hot executor's
		// spill stands out against a real median (skewed_spill).
		return taskShape{durMs: jitter(1500), cpuFrac: 0.7, gcFrac: 0.02, memSpill: jitter(48 << 20), diskSpill: jitter(16 << 20), shuffleRead: jitter(16 << 20)}
	case gcHeavyStage:
		return taskShape{durMs: jitter(2500), cpuFrac: 0.45, gcFrac: 0.3, shuffleRead: jitter(8 << 20)}
	case singleTask:
		return taskShape{durMs: 45000, cpuFrac: 0.8, gcFrac: 0.02, shuffleRead: 512 << 20}
	default:
		return taskShape{durMs: jitter(2000), cpuFrac: 0.85, gcFrac: 0.02, input: jitter(128 << 20), shuffleWrite: jitter(24 << 20)}
	}
}

// scaled applies WorkScale, and SlowFactor to the slow stage.
func (s *writer) scaled(sh taskShape, stage string) taskShape {
	f := 1.0
	if s.cfg.WorkScale > 0 {
		f = s.cfg.WorkScale
	}
	sh.input = int64(float64(sh.input) * f)
	sh.memSpill = int64(float64(sh.memSpill) * f)
	sh.diskSpill = int64(float64(sh.diskSpill) * f)
	sh.shuffleRead = int64(float64(sh.shuffleRead) * f)
	sh.shuffleWrite = int64(float64(sh.shuffleWrite) * f)
	if s.cfg.SlowStage != "" && s.cfg.SlowFactor > 0 && strings.Contains(stage, s.cfg.SlowStage) {
		f *= s.cfg.SlowFactor
	}
	sh.durMs = int64(float64(sh.durMs) * f)
	return sh
}

// extraProperties renders Config.Properties as JSON members, sorted.
func (s *writer) extraProperties() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Properties)) {
		b.WriteString("," + strconv.Quote(k) + ":" + strconv.Quote(s.cfg.Properties[k]))
	}
	return b.String()
}

// stage runs one attempt of a stage over the given partitions: it
// schedules the tasks on the free cores of live executors, queues their
// events and writes the stage's end. With ff the attempt fails at its first
// fetch failure: no task starts after it, and the tasks still running end
// later, after the stage, as in Spark. It returns the partitions computed.
func (s *writer) stage(id, attempt int, st stageSpec, partitions []int, ff *fetchFailure) map[int]taskOutcome {
	submitted := s.now + 20
	s.emit(submitted, fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s,"Properties":{"spark.job.description":"nightly rollup"}}`,
		stageInfo(id, attempt, st.name, len(partitions), submitted, 0, "")))
	done := map[int]taskOutcome{}
	last := submitted
	var failedAt int64 // 0 until a task fails fetching
	failure := ""
	for i, part := range partitions {
		// Earliest free core among live executors.
		ei, ci := -1, -1
		var at int64
		for e := range s.execs {
			if !s.execs[e].alive {
				continue
			}
			for c, free := range s.execs[e].busy {
				if ei < 0 || free < at {
					ei, ci, at = e, c, free
				}
			}
		}
		if ei < 0 {
			s.err = fmt.Errorf("simulate: stage %d has no live executor to run on", id)
			return nil
		}
		if at < submitted+5 {
			at = submitted + 5
		}
		if failedAt != 0 && at >= failedAt {
			break // the failed attempt launches no more tasks
		}
		sh := s.scaled(s.shape(st.kind, part, st.tasks), st.name)
		fetchFailed := ff != nil && ff.failingTasks[i]
		if fetchFailed {
			sh.durMs = 1200 + s.rng.Int64N(400) // the fetch gives up after its retries
		}
		launch, finish := at, at+sh.durMs
		s.execs[ei].busy[ci] = finish + 3
		tid := s.tid
		s.tid++
		ex := s.execs[ei]
		info := func(fin int64, failed bool) string {
			return fmt.Sprintf(`"Task Info":{"Task ID":%d,"Index":%d,"Attempt":0,"Partition ID":%d,"Launch Time":%d,"Executor ID":%q,"Host":%q,"Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%d,"Failed":%t,"Killed":false,"Accumulables":[]}`,
				tid, i, part, launch, ex.id, ex.host, fin, failed)
		}
		s.later(launch, fmt.Sprintf(`{"Event":"SparkListenerTaskStart","Stage ID":%d,"Stage Attempt ID":%d,%s}`, id, attempt, info(0, false)))
		if fetchFailed {
			lostMap := ff.lostMaps[i%len(ff.lostMaps)]
			lost := s.execs[ff.exec]
			msg := fmt.Sprintf("org.apache.spark.shuffle.FetchFailedException: Failed to connect to %s:%d\n"+
				"\tat org.apache.spark.errors.SparkCoreErrors$.fetchFailedError(SparkCoreErrors.scala:437)\n"+
				"\tat org.apache.spark.storage.ShuffleBlockFetcherIterator.throwFetchFailedException(ShuffleBlockFetcherIterator.scala:1239)\n",
				lost.host, blockManagerPort(ff.exec))
			// A failed fetch reports no task metrics: Spark writes none.
			s.later(finish, fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":%d,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"FetchFailed","Block Manager Address":{"Executor ID":%q,"Host":%q,"Port":%d},"Shuffle ID":%d,"Map ID":%d,"Map Index":%d,"Reduce ID":%d,"Message":%q},%s,"Task Executor Metrics":{"JVMHeapMemory":0}}`,
				id, attempt, lost.id, lost.host, blockManagerPort(ff.exec), ff.shuffleID, ff.mapOutputs[lostMap].taskID, lostMap, part, msg, info(finish, true)))
			if failedAt == 0 || finish < failedAt {
				failedAt, failure = finish, msg
			}
			continue
		}
		s.later(finish, fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":%d,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"Success"},%s,%s}`,
			id, attempt, info(finish, false), metricsJSON(sh)))
		done[part] = taskOutcome{exec: ei, taskID: tid, finish: finish}
		last = max(last, finish)
	}
	if failedAt != 0 {
		// Spark ends the attempt as soon as it handles the failed task's end.
		s.now = failedAt
		s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerStageCompleted","Stage Info":%s}`,
			stageInfo(id, attempt, st.name, len(partitions), submitted, s.now, failure)))
		return done
	}
	s.now = last + 30
	s.emit(s.now, fmt.Sprintf(`{"Event":"SparkListenerStageCompleted","Stage Info":%s}`,
		stageInfo(id, attempt, st.name, len(partitions), submitted, s.now, "")))
	return done
}

// blockManagerPort is the port addExecutor gives the executor's block
// manager.
func blockManagerPort(exec int) int { return 40000 + exec + 1 }

// metricsJSON renders "Task Metrics" in Spark's units: CPU and shuffle-write
// times in ns, the others in ms.
func metricsJSON(sh taskShape) string {
	deserMs := int64(20)
	runMs := sh.durMs - deserMs - 5
	cpuNs := int64(float64(runMs)*sh.cpuFrac) * 1_000_000
	gcMs := int64(float64(runMs) * sh.gcFrac)
	fetchMs := int64(float64(runMs) * sh.fetchFrac)
	writeNs := sh.shuffleWrite / (200 << 20 / 1000) * 1_000_000 // ~200 MB/s
	return fmt.Sprintf(`"Task Executor Metrics":{"JVMHeapMemory":0},"Task Metrics":{"Executor Deserialize Time":%d,"Executor Deserialize CPU Time":%d,"Executor Run Time":%d,"Executor CPU Time":%d,"Peak Execution Memory":%d,"Result Size":2300,"JVM GC Time":%d,"Result Serialization Time":1,"Memory Bytes Spilled":%d,"Disk Bytes Spilled":%d,"Shuffle Read Metrics":{"Remote Blocks Fetched":%d,"Local Blocks Fetched":%d,"Fetch Wait Time":%d,"Remote Bytes Read":%d,"Remote Bytes Read To Disk":0,"Local Bytes Read":%d,"Total Records Read":%d,"Remote Requests Duration":%d},"Shuffle Write Metrics":{"Shuffle Bytes Written":%d,"Shuffle Write Time":%d,"Shuffle Records Written":%d},"Input Metrics":{"Bytes Read":%d,"Records Read":%d},"Output Metrics":{"Bytes Written":0,"Records Written":0},"Updated Blocks":[]}`,
		deserMs, deserMs*800_000, runMs, cpuNs, 64<<20, gcMs, sh.memSpill, sh.diskSpill,
		sh.shuffleRead/(4<<20), sh.shuffleRead/(16<<20), fetchMs, sh.shuffleRead*3/4, sh.shuffleRead/4, sh.shuffleRead/100, fetchMs,
		sh.shuffleWrite, writeNs, sh.shuffleWrite/100, sh.input, sh.input/120)
}
