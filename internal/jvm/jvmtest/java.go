package jvmtest

// sources are the Java files the tests compile. The classes under
// org.apache.* only borrow the names of the Spark and Flink classes whose
// frames the classifier looks for; they block the way those classes do.
var sources = map[string]string{
	"org/apache/spark/storage/ShuffleBlockFetcherIterator.java": `package org.apache.spark.storage;

import java.util.concurrent.LinkedBlockingQueue;

public class ShuffleBlockFetcherIterator {
  private final LinkedBlockingQueue<Object> results = new LinkedBlockingQueue<>();

  // Like Spark: next() blocks in results.take() until a fetch completes.
  public Object next() throws InterruptedException { return results.take(); }
}
`,
	"org/apache/spark/memory/ExecutionMemoryPool.java": `package org.apache.spark.memory;

public class ExecutionMemoryPool {
  private final Object lock = new Object();

  // Like Spark: waits on the memory manager's lock until memory is freed.
  public long acquireMemory(long numBytes) throws InterruptedException {
    synchronized (lock) {
      while (true) lock.wait();
    }
  }
}
`,
	"org/apache/spark/util/collection/unsafe/sort/UnsafeExternalSorter.java": `package org.apache.spark.util.collection.unsafe.sort;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;

public class UnsafeExternalSorter {
  // Writes a spill file forever, rewinding every 4 MB to bound disk use.
  public void spill(File file) throws IOException {
    byte[] page = new byte[64 << 10];
    try (RandomAccessFile out = new RandomAccessFile(file, "rw")) {
      for (long n = 0; ; n++) {
        if (n % 64 == 0) out.seek(0);
        out.write(page);
      }
    }
  }
}
`,
	"org/apache/flink/runtime/io/network/buffer/LocalBufferPool.java": `package org.apache.flink.runtime.io.network.buffer;

import java.util.concurrent.CompletableFuture;

public class LocalBufferPool {
  // Like Flink: blocks until a network buffer is recycled, here never.
  public Object requestBufferBuilderBlocking() throws Exception {
    return new CompletableFuture<Object>().get();
  }
}
`,
	"sgtest/Workload.java": workloadJava,
}

// workloadJava starts named threads in chosen states. Arguments are
// kind=count pairs; it prints "thread<TAB>kind<TAB>name" per thread, then
// "ready", and runs until killed (or halts after halt=<ms>).
const workloadJava = `package sgtest;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.flink.runtime.io.network.buffer.LocalBufferPool;
import org.apache.spark.memory.ExecutionMemoryPool;
import org.apache.spark.storage.ShuffleBlockFetcherIterator;
import org.apache.spark.util.collection.unsafe.sort.UnsafeExternalSorter;

public class Workload {
  static final Object MONITOR = new Object();
  static final ReentrantLock LOCK = new ReentrantLock();
  static volatile long sink;
  static int tid = 100;
  static int sparkIndex = 0;
  static int flinkIndex = 0;

  interface Body { void run() throws Exception; }

  // Spark names, cycling through the 3.2+, 2.x and 1.x forms.
  static String sparkName() {
    int i = sparkIndex++;
    int t = tid++;
    switch (i % 3) {
      case 0: return "Executor task launch worker for task " + i + ".0 in stage 1.0 (TID " + t + ")";
      case 1: return "Executor task launch worker for task " + t;
      default: return "Executor task launch worker-" + i;
    }
  }

  static String flinkName(String op, int parallelism) {
    return op + " (" + (flinkIndex++ % parallelism + 1) + "/" + parallelism + ")#0";
  }

  static void start(String kind, String name, Body body) {
    Thread t = new Thread(() -> {
      try { body.run(); } catch (Throwable e) { e.printStackTrace(); }
    }, name);
    t.setDaemon(true);
    t.start();
    System.out.println("thread\t" + kind + "\t" + name);
  }

  static void spin() { long x = 1; while (true) { x = x * 31 + 7; if (x == 42) sink = x; } }

  static void sleepDeep(int depth) throws InterruptedException {
    if (depth > 0) { sleepDeep(depth - 1); return; }
    Thread.sleep(Long.MAX_VALUE);
  }

  public static void main(String[] args) throws Exception {
    CountDownLatch held = new CountDownLatch(2);
    start("holder", "monitor-holder", () -> {
      synchronized (MONITOR) { held.countDown(); Thread.sleep(Long.MAX_VALUE); }
    });
    start("holder", "lock-holder", () -> {
      LOCK.lock(); held.countDown(); Thread.sleep(Long.MAX_VALUE);
    });
    held.await();
    Pipe pipe = Pipe.open();
    File spillDir = new File(System.getProperty("spill.dir", System.getProperty("java.io.tmpdir")));
    for (String arg : args) {
      String[] kv = arg.split("=");
      int n = Integer.parseInt(kv[1]);
      for (int i = 0; i < n; i++) {
        switch (kv[0]) {
          case "spin": start("spin", sparkName(), Workload::spin); break;
          case "blocked": start("blocked", sparkName(), () -> { synchronized (MONITOR) { sink++; } }); break;
          case "park": start("park", sparkName(), () -> LOCK.lock()); break;
          case "shuffle": start("shuffle", sparkName(), () -> new ShuffleBlockFetcherIterator().next()); break;
          case "memory": start("memory", sparkName(), () -> new ExecutionMemoryPool().acquireMemory(1 << 20)); break;
          case "spill": {
            File f = new File(spillDir, "spill-" + i + ".data");
            start("spill", sparkName(), () -> new UnsafeExternalSorter().spill(f));
            break;
          }
          case "io": start("io", sparkName(), () -> pipe.source().read(ByteBuffer.allocate(16))); break;
          case "sleep": start("sleep", sparkName(), () -> Thread.sleep(Long.MAX_VALUE)); break;
          case "flinkspin": start("flinkspin", flinkName("Source: Generator", n), Workload::spin); break;
          case "flinkbp": start("flinkbp", flinkName("Map -> Sink: Out", n), () -> new LocalBufferPool().requestBufferBuilderBlocking()); break;
          case "pool": { int d = 10 + i % 20; start("pool", "pool-worker-" + i, () -> sleepDeep(d)); break; }
          case "halt": {
            long ms = n; i = n;
            start("halt", "halter", () -> { Thread.sleep(ms); Runtime.getRuntime().halt(3); });
            break;
          }
          default: throw new IllegalArgumentException("unknown kind " + kv[0]);
        }
      }
    }
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
`
