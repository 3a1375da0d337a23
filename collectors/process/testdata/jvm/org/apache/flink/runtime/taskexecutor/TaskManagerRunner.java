package org.apache.flink.runtime.taskexecutor;

/** Stand-in for Flink's TaskManager entry point; see sparkglance.fake.Jvm. */
public final class TaskManagerRunner {
    public static void main(String[] args) throws InterruptedException {
        sparkglance.fake.Jvm.run();
    }
}
