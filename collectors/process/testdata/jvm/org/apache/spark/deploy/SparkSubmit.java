package org.apache.spark.deploy;

/** Stand-in for Spark's driver entry point; see sparkglance.fake.Jvm. */
public final class SparkSubmit {
    public static void main(String[] args) throws InterruptedException {
        sparkglance.fake.Jvm.run();
    }
}
