package org.apache.spark.executor;

/** Stand-in for Spark's executor entry point; see sparkglance.fake.Jvm. */
public final class CoarseGrainedExecutorBackend {
    public static void main(String[] args) throws InterruptedException {
        sparkglance.fake.Jvm.run();
    }
}
