// Package discovery finds the Spark and Flink JVMs of a node in /proc:
// executors, drivers, TaskManagers and JobManagers, named by main class and
// arguments (an [Identity] without pid, so an executor keeps its name for
// its whole life) and placed in their pod and container from their cgroups.
//
// [Scanner] keeps the table of live JVMs: Scan finds new ones, Recheck
// notices an exit or a reused pid (same number, other start time: always a
// new process). [Service] is the node's one discovery, built once by the
// command and shared by the collectors that need it (the process collector
// samples the JVMs' CPU, the stack sampler dumps their threads), so /proc
// is never scanned twice.
package discovery
