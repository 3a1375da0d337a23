package jvmtest

// FakeExecutorMain is a main class named like Spark's executor backend, so
// that process discovery takes the JVM for executor <--executor-id> of
// application <--app-id>. It runs sgtest.Workload with the arguments after
// "--". With -Dsgtest.ui.portfile=<path> it also serves a Spark-UI-like
// REST API on 127.0.0.1 (port written to that file) whose thread dumps are
// real ThreadMXBean.dumpAllThreads results, encoded as Spark 3.x does.
const FakeExecutorMain = "org.apache.spark.executor.CoarseGrainedExecutorBackend"

func init() {
	sources["org/apache/spark/executor/CoarseGrainedExecutorBackend.java"] = fakeExecutorJava
}

const fakeExecutorJava = `package org.apache.spark.executor;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

public class CoarseGrainedExecutorBackend {
  static String appId = "", executorId = "";

  public static void main(String[] args) throws Exception {
    int rest = args.length;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--app-id") && i + 1 < args.length) appId = args[i + 1];
      if (args[i].equals("--executor-id") && i + 1 < args.length) executorId = args[i + 1];
      if (args[i].equals("--")) { rest = i + 1; break; }
    }
    String portFile = System.getProperty("sgtest.ui.portfile");
    if (portFile != null) serveUI(portFile);
    sgtest.Workload.main(Arrays.copyOfRange(args, Math.min(rest, args.length), args.length));
  }

  static void serveUI(String portFile) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/v1/applications", ex -> {
      String path = ex.getRequestURI().getPath();
      String base = "/api/v1/applications";
      String body; int status = 200;
      if (path.equals(base)) body = "[{\"id\":\"" + appId + "\",\"name\":\"fake\"}]";
      else if (path.equals(base + "/" + appId + "/executors")) body = "[{\"id\":\"" + executorId + "\",\"isActive\":true}]";
      else if (path.equals(base + "/" + appId + "/executors/" + executorId + "/threads")) body = threads();
      else { status = 404; body = "no such path " + path; }
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, b.length);
      try (OutputStream o = ex.getResponseBody()) { o.write(b); }
    });
    server.start();
    Files.write(Paths.get(portFile + ".tmp"), String.valueOf(server.getAddress().getPort()).getBytes(StandardCharsets.UTF_8));
    Files.move(Paths.get(portFile + ".tmp"), Paths.get(portFile));
  }

  // Like Spark 3.x's ThreadStackTrace: stackTrace {"elems": [...]}, a
  // " => holding Monitor(...)" suffix on frames that hold a monitor, and
  // blockedByLock "Lock(class@hash})".
  static String threads() {
    StringBuilder sb = new StringBuilder("[");
    ThreadInfo[] infos = ManagementFactory.getThreadMXBean().dumpAllThreads(true, true);
    for (int i = 0; i < infos.length; i++) {
      ThreadInfo ti = infos[i];
      if (i > 0) sb.append(',');
      sb.append("{\"threadId\":").append(ti.getThreadId())
        .append(",\"threadName\":").append(str(ti.getThreadName()))
        .append(",\"threadState\":").append(str(ti.getThreadState().name()))
        .append(",\"stackTrace\":{\"elems\":[");
      StackTraceElement[] st = ti.getStackTrace();
      for (int j = 0; j < st.length; j++) {
        String el = st[j].toString();
        for (MonitorInfo m : ti.getLockedMonitors()) {
          if (m.getLockedStackDepth() == j) el += " => holding Monitor(" + m.getClassName() + "@" + Integer.toHexString(m.getIdentityHashCode()) + "})";
        }
        if (j > 0) sb.append(',');
        sb.append(str(el));
      }
      sb.append("]}");
      LockInfo li = ti.getLockInfo();
      sb.append(",\"blockedByLock\":").append(str(li == null ? "" : "Lock(" + li.getClassName() + "@" + Integer.toHexString(li.getIdentityHashCode()) + "})"));
      sb.append(",\"holdingLocks\":[]}");
    }
    return sb.append(']').toString();
  }

  static String str(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }
}
`
