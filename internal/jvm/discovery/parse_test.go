package discovery

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

func TestParseJVMCommand(t *testing.T) {
	files := map[string]string{
		"opts.args": "-Xmx1g\n# comment -cp nothing\n-cp \"/a b/*\" 'org.example.Main' --x 'it''s'\n",
		"bad.args":  "-cp 'unterminated\n",
	}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	cases := []struct {
		argv   []string
		want   jvmCommand
		isJava bool
		err    bool
	}{
		{[]string{"/usr/bin/java", "-server", "-cp", "/x:/y", "-Xmx2g", "-Dk=v", "-XX:+UseG1GC", "a.B", "--executor-id", "3"},
			jvmCommand{Options: []string{"-server", "-cp", "/x:/y", "-Xmx2g", "-Dk=v", "-XX:+UseG1GC"}, MainClass: "a.B", Args: []string{"--executor-id", "3"}}, true, false},
		{[]string{"java", "@opts.args", "@later"},
			jvmCommand{Options: []string{"-Xmx1g", "-cp", "/a b/*"}, MainClass: "org.example.Main", Args: []string{"--x", "its", "@later"}}, true, false},
		{[]string{"java", "--class-path", "@@literal", "m.C"},
			jvmCommand{Options: []string{"--class-path", "@literal"}, MainClass: "m.C", Args: []string{}}, true, false},
		{[]string{"java", "--disable-@files", "-cp", "x", "@opts.args"},
			jvmCommand{Options: []string{"--disable-@files", "-cp", "x"}, MainClass: "@opts.args", Args: []string{}}, true, false},
		{[]string{"java", "-m", "app.mod/app.Main", "arg"},
			jvmCommand{MainClass: "app.Main", Args: []string{"arg"}}, true, false},
		{[]string{"java", "-Xmx1g", "-jar", "app.jar", "a"},
			jvmCommand{Options: []string{"-Xmx1g"}, Jar: "app.jar", Args: []string{"a"}}, true, false},
		{[]string{"python3", "org.apache.spark.deploy.SparkSubmit"}, jvmCommand{}, false, false},
		{[]string{"java", "@missing.args"}, jvmCommand{}, true, true},
		{[]string{"java", "@bad.args"}, jvmCommand{}, true, true},
		{[]string{"java", "-cp"}, jvmCommand{}, true, true},
	}
	for _, c := range cases {
		got, isJava, err := parseJVMCommand(c.argv, read)
		if isJava != c.isJava || (err != nil) != c.err {
			t.Errorf("%q: java=%v err=%v, want java=%v err=%v", c.argv, isJava, err, c.isJava, c.err)
			continue
		}
		if !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %#v\nwant %#v", c.argv, got, c.want)
		}
	}
	if _, _, err := parseJVMCommand([]string{"java", "@bad.args"}, read); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("unterminated quote error %v should name the line", err)
	}
	_, _, err := parseJVMCommand([]string{"java", "@missing.args"}, read)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "@missing.args") {
		t.Errorf("missing argfile error %v should wrap ErrNotExist and name the file", err)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		main string
		args []string
		opts []string
		want Identity
	}{
		{"org.apache.spark.executor.YarnCoarseGrainedExecutorBackend",
			[]string{"--driver-url", "spark://d", "--executor-id", "12", "--hostname", "n1", "--cores", "4", "--app-id", "application_1700000000000_0042"}, nil,
			Identity{"spark", "executor", "application_1700000000000_0042", "12"}},
		{"org.apache.spark.executor.CoarseGrainedExecutorBackend", []string{"--executor-id=5", "--app-id=app-1"}, nil,
			Identity{"spark", "executor", "app-1", "5"}},
		{"org.apache.spark.deploy.SparkSubmit", []string{"--conf=spark.app.id=app-9", "x.py"}, nil,
			Identity{"spark", "driver", "app-9", "driver"}},
		{"org.apache.spark.deploy.SparkSubmit", []string{"pyspark-shell"}, []string{"-Dspark.app.id=app-sys"},
			Identity{"spark", "driver", "app-sys", "driver"}},
		{"org.apache.spark.deploy.SparkSubmit", []string{"--conf", "spark.app.name=x", "pyspark-shell"}, nil,
			Identity{"spark", "driver", "pid-42-777", "driver"}},
		{"org.apache.flink.runtime.taskexecutor.TaskManagerRunner", []string{"--configDir", "/c", "-Dtaskmanager.resource-id=tm-9", "-D", "high-availability.cluster-id=ha-1"}, nil,
			Identity{"flink", "taskmanager", "ha-1", "tm-9"}},
		{"org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", []string{"--configDir", "/c"}, nil,
			Identity{"flink", "jobmanager", "pid-42-777", "jobmanager"}},
		{"org.apache.flink.container.entrypoint.StandaloneApplicationClusterEntryPoint", []string{"-Dyarn.application.id=application_1_2"}, nil,
			Identity{"flink", "jobmanager", "application_1_2", "jobmanager"}},
	}
	for _, c := range cases {
		got, ok := classify(jvmCommand{MainClass: c.main, Args: c.args, Options: c.opts}, pidIdentity(42, 777))
		if !ok || got != c.want {
			t.Errorf("%s %q: %+v %v, want %+v", c.main, c.args, got, ok, c.want)
		}
	}
	for _, other := range []string{"org.apache.zookeeper.server.quorum.QuorumPeerMain", "org.apache.spark.deploy.history.HistoryServer", ""} {
		if id, ok := classify(jvmCommand{MainClass: other}, "pid-1-1"); ok {
			t.Errorf("%q classified as %+v", other, id)
		}
	}
}

func TestPlacementFromCgroups(t *testing.T) {
	cases := []struct {
		lines string
		want  Placement
	}{
		{"12:memory:/kubepods/besteffort/pod0b9a7e3c-4f5d-4a1b-9c2d-8e7f6a5b4c3d/3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899\n",
			Placement{"0b9a7e3c-4f5d-4a1b-9c2d-8e7f6a5b4c3d", "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"}},
		{"0::/kubepods.slice/kubepods-pod1c2d3e4f_5a6b_4c7d_8e9f_0a1b2c3d4e5f.slice/crio-aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233.scope\n",
			Placement{"1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233"}},
		{"0::/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
			Placement{"", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}},
		{"0::/user.slice/user-1000.slice/session-3.scope\n", Placement{}},
	}
	for _, c := range cases {
		var cgs []procfs.Cgroup
		for _, l := range strings.Split(strings.TrimSpace(c.lines), "\n") {
			parts := strings.SplitN(l, ":", 3)
			cgs = append(cgs, procfs.Cgroup{Path: parts[2]})
		}
		if got := placementFromCgroups(cgs); got != c.want {
			t.Errorf("%q: %+v, want %+v", c.lines, got, c.want)
		}
	}
}
