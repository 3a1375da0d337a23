package sparkglance.fake;

/**
 * Body of the stand-in Spark and Flink main classes used by the process
 * collector's tests. It prints "ready", then either keeps one core busy
 * (-Dsparkglance.burn=true) or sleeps, and exits after
 * -Dsparkglance.seconds (default 60) so that a crashed test leaks nothing
 * for long.
 */
public final class Jvm {
    private static volatile long sink;

    private Jvm() {}

    public static void run() throws InterruptedException {
        long seconds = Long.getLong("sparkglance.seconds", 60L);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        System.out.println("ready");
        System.out.flush();
        if (Boolean.getBoolean("sparkglance.burn")) {
            long x = 1;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 1_000_000; i++) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
                sink = x;
            }
        } else {
            Thread.sleep(seconds * 1000L);
        }
    }
}
