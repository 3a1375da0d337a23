package stacks

// Rule assigns State to a task thread whose sample meets every condition it
// sets; rules are tried in order and the first match wins. A thread no rule
// matches is Running. Frame patterns match "pkg.Class.method", where '*'
// stands for any run of characters.
type Rule struct {
	// Name documents the rule and shows in errors.
	Name  string `json:"name"`
	State State  `json:"state"`
	// Framework, if set, limits the rule to "spark" or "flink" threads.
	Framework string `json:"framework,omitempty"`
	// ThreadStates, if set, lists java.lang.Thread.State values
	// (RUNNABLE, BLOCKED, WAITING, TIMED_WAITING) the thread must be in.
	ThreadStates []string `json:"thread_states,omitempty"`
	// AnyFrame: some frame matches one of these patterns.
	AnyFrame []string `json:"any_frame,omitempty"`
	// Sequence: consecutive frames, innermost first, match these patterns
	// in order (e.g. a blocking call directly under its caller).
	Sequence []string `json:"sequence,omitempty"`
	// Depth, if positive, looks for AnyFrame and the start of Sequence only
	// in the innermost Depth frames: "the thread is *in* this call".
	Depth int `json:"depth,omitempty"`
	// WaitingFor: the class of the lock or object the thread waits for
	// ("waiting to lock", "waiting on", "parking to wait for") matches one
	// of these patterns.
	WaitingFor []string `json:"waiting_for,omitempty"`
}

// Thread states rules test against.
var (
	waiting         = []string{"WAITING", "TIMED_WAITING"}
	waitingOrLocked = []string{"WAITING", "TIMED_WAITING", "BLOCKED"}
)

// DefaultRules returns the built-in table. The Spark frames were checked
// against Spark's sources (ExecutionMemoryPool.acquireMemory waits in
// lock.wait(); ShuffleBlockFetcherIterator.next in results.take()); the
// Flink rule is the one Flink's own back-pressure sampler used.
func DefaultRules() []Rule {
	return []Rule{
		{
			Name: "flink_backpressure", State: Backpressure,
			AnyFrame: []string{"org.apache.flink.runtime.io.network.buffer.LocalBufferPool.request*Blocking"},
		},
		{
			Name: "spark_shuffle_fetch", State: ShuffleFetch,
			Sequence: []string{"java.util.concurrent.LinkedBlockingQueue.take", "org.apache.spark.storage.ShuffleBlockFetcherIterator.next"},
		},
		{
			// lock.wait() inside acquireMemory, or BLOCKED entering it.
			Name: "spark_execution_memory", State: MemoryWait, Depth: 5, ThreadStates: waitingOrLocked,
			AnyFrame: []string{"org.apache.spark.memory.ExecutionMemoryPool.acquireMemory"},
		},
		{
			// TaskMemoryManager.acquireExecutionMemory is synchronized.
			Name: "spark_task_memory_manager", State: MemoryWait, Depth: 1, ThreadStates: []string{"BLOCKED"},
			AnyFrame: []string{"org.apache.spark.memory.TaskMemoryManager.acquireExecutionMemory", "org.apache.spark.memory.*MemoryManager.acquire*Memory"},
		},
		{
			Name: "spark_spill", State: Spill,
			AnyFrame: []string{
				"org.apache.spark.util.collection.unsafe.sort.UnsafeExternalSorter.spill",
				"org.apache.spark.util.collection.unsafe.sort.UnsafeSorterSpillWriter.*",
				"org.apache.spark.util.collection.ExternalSorter.spill*",
				"org.apache.spark.util.collection.ExternalAppendOnlyMap.spill*",
				"org.apache.spark.shuffle.sort.ShuffleExternalSorter.spill",
				"org.apache.spark.shuffle.sort.ShuffleExternalSorter.writeSortedFile",
				"org.apache.spark.storage.DiskBlockObjectWriter.*",
			},
		},
		{
			// Blocking I/O shows as RUNNABLE in native code: look at the top.
			Name: "blocking_io", State: IO, Depth: 3,
			AnyFrame: []string{
				"java.net.SocketInputStream.socketRead*",
				"java.net.SocketOutputStream.socketWrite*",
				"sun.nio.ch.SocketDispatcher.read*",
				"sun.nio.ch.SocketDispatcher.write*",
				"sun.nio.ch.FileDispatcherImpl.read*",
				"sun.nio.ch.FileDispatcherImpl.write*",
				"sun.nio.ch.FileDispatcherImpl.pread*",
				"sun.nio.ch.FileDispatcherImpl.pwrite*",
				"sun.nio.ch.UnixFileDispatcherImpl.read*",
				"sun.nio.ch.UnixFileDispatcherImpl.write*",
				"sun.nio.ch.UnixFileDispatcherImpl.pread*",
				"sun.nio.ch.UnixFileDispatcherImpl.pwrite*",
				"sun.nio.ch.FileChannelImpl.transferTo*",
				"sun.nio.ch.Net.poll",
				"sun.nio.ch.Net.connect*",
				"sun.nio.ch.NioSocketImpl.park",
				"sun.nio.ch.EPoll.wait",
				"sun.nio.ch.EPollArrayWrapper.epollWait",
				"java.io.FileInputStream.read*",
				"java.io.FileOutputStream.write*",
				"java.io.RandomAccessFile.read*",
				"java.io.RandomAccessFile.write*",
			},
		},
		{Name: "monitor_blocked", State: Lock, ThreadStates: []string{"BLOCKED"}},
		{
			Name: "lock_parked", State: Lock, ThreadStates: waiting,
			WaitingFor: []string{
				"java.util.concurrent.locks.ReentrantLock*",
				"java.util.concurrent.locks.ReentrantReadWriteLock*",
				"java.util.concurrent.locks.StampedLock*",
			},
		},
		{Name: "other_wait", State: OtherWait, ThreadStates: waiting},
	}
}
