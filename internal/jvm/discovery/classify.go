package discovery

import (
	"fmt"
	"strings"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Frameworks and roles, as exported in the framework and role labels
// (declared in the metric schema).
const (
	FrameworkSpark = string(sm.FrameworkSpark)
	FrameworkFlink = string(sm.FrameworkFlink)

	RoleExecutor    = string(sm.RoleExecutor)
	RoleDriver      = string(sm.RoleDriver)
	RoleTaskManager = string(sm.RoleTaskManager)
	RoleJobManager  = string(sm.RoleJobManager)
)

// Identity names the series a process's counters accumulate in. It carries
// no pid: an executor is the same series for its whole life.
type Identity struct {
	Framework  string
	Role       string
	AppID      string
	ExecutorID string
}

var roleByMainClass = map[string][2]string{
	"org.apache.spark.executor.CoarseGrainedExecutorBackend":               {FrameworkSpark, RoleExecutor},
	"org.apache.spark.executor.YarnCoarseGrainedExecutorBackend":           {FrameworkSpark, RoleExecutor},
	"org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend":     {FrameworkSpark, RoleExecutor},
	"org.apache.spark.deploy.SparkSubmit":                                  {FrameworkSpark, RoleDriver},
	"org.apache.flink.runtime.taskexecutor.TaskManagerRunner":              {FrameworkFlink, RoleTaskManager},
	"org.apache.flink.yarn.YarnTaskExecutorRunner":                         {FrameworkFlink, RoleTaskManager},
	"org.apache.flink.kubernetes.taskmanager.KubernetesTaskExecutorRunner": {FrameworkFlink, RoleTaskManager},
}

// classify names the role of a JVM from its main class and arguments.
// pidID ("pid-<pid>-<starttime>") stands in for an id the command line
// does not carry. ok is false for any other program.
func classify(cmd jvmCommand, pidID string) (id Identity, ok bool) {
	fr, known := roleByMainClass[cmd.MainClass]
	if !known && isFlinkClusterEntrypoint(cmd.MainClass) {
		fr, known = [2]string{FrameworkFlink, RoleJobManager}, true
	}
	if !known {
		return Identity{}, false
	}
	id = Identity{Framework: fr[0], Role: fr[1]}
	switch id.Role {
	case RoleExecutor:
		id.AppID = flagValue(cmd.Args, "--app-id")
		id.ExecutorID = flagValue(cmd.Args, "--executor-id")
		if id.ExecutorID == "" {
			id.ExecutorID = pidID
		}
	case RoleDriver:
		id.ExecutorID = "driver" // Spark's own name for the driver's executor
		id.AppID = sparkConf(cmd, "spark.app.id")
		if id.AppID == "" {
			id.AppID = pidID
		}
	case RoleTaskManager:
		id.AppID = flinkClusterID(cmd)
		id.ExecutorID = flinkDynamicProperty(cmd, "taskmanager.resource-id")
		if id.ExecutorID == "" {
			id.ExecutorID = pidID
		}
	case RoleJobManager:
		id.ExecutorID = "jobmanager"
		id.AppID = flinkClusterID(cmd)
		if id.AppID == "" {
			id.AppID = pidID
		}
	}
	return id, true
}

// isFlinkClusterEntrypoint matches org.apache.flink.*.entrypoint.*ClusterEntrypoint
// (StandaloneApplicationClusterEntryPoint spells "Point" with a capital).
func isFlinkClusterEntrypoint(class string) bool {
	return strings.HasPrefix(class, "org.apache.flink.") &&
		strings.Contains(class, ".entrypoint.") &&
		strings.HasSuffix(strings.ToLower(class), "clusterentrypoint")
}

func pidIdentity(pid int, starttime uint64) string {
	return fmt.Sprintf("pid-%d-%d", pid, starttime)
}

// flagValue finds "--name value" or "--name=value" in args.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// sparkConf finds a Spark setting given to SparkSubmit as --conf k=v,
// --conf=k=v or -c k=v, or to the JVM as -Dk=v.
func sparkConf(cmd jvmCommand, key string) string {
	for i, a := range cmd.Args {
		var kv string
		switch {
		case (a == "--conf" || a == "-c") && i+1 < len(cmd.Args):
			kv = cmd.Args[i+1]
		case strings.HasPrefix(a, "--conf="):
			kv = strings.TrimPrefix(a, "--conf=")
		}
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return systemProperty(cmd.Options, key)
}

// flinkDynamicProperty finds a Flink setting given after the main class as
// "-D k=v" or "-Dk=v", or to the JVM as -Dk=v.
func flinkDynamicProperty(cmd jvmCommand, key string) string {
	for i, a := range cmd.Args {
		kv, ok := strings.CutPrefix(a, "-D")
		if ok && kv == "" && i+1 < len(cmd.Args) {
			kv = cmd.Args[i+1]
		}
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return systemProperty(cmd.Options, key)
}

func flinkClusterID(cmd jvmCommand) string {
	for _, key := range []string{"kubernetes.cluster-id", "high-availability.cluster-id", "yarn.application.id"} {
		if v := flinkDynamicProperty(cmd, key); v != "" {
			return v
		}
	}
	return ""
}

func systemProperty(opts []string, key string) string {
	for _, o := range opts {
		if v, ok := strings.CutPrefix(o, "-D"+key+"="); ok {
			return v
		}
	}
	return ""
}
