package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
)

// parseServe parses `serve args…` into a fresh command (each has its own
// collector configurations).
func parseServe(t *testing.T, args ...string) *serveCommand {
	t.Helper()
	app := kingpin.New("sparkglance", "")
	cmd := newServeCommand(app.Command("serve", ""))
	if _, err := app.Parse(append([]string{"serve"}, args...)); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// An object-store --eventlog.dir fails at start-up, before any port is
// bound, with analyze's message.
func TestServeRejectsUnsupportedEventLogDir(t *testing.T) {
	cmd := parseServe(t, "--eventlog.dir=hdfs://namenode:8020/spark-logs", "--web.listen-address=127.0.0.1:0")
	err := cmd.run(context.Background())
	if exitStatus(err) != exitUsage {
		t.Fatalf("err %v: exit %d, want %d", err, exitStatus(err), exitUsage)
	}
	for _, want := range []string{"--eventlog.dir", "hdfs://namenode:8020/spark-logs", "local paths", "file://", "mount"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestServeTakesFileURLEventLogDir(t *testing.T) {
	cmd := parseServe(t, "--eventlog.dir=file:///var/log/spark-events", "--eventlog.dir=/srv/logs")
	if err := localEventLogDirs(cmd.wiring.EventLog.Dirs); err != nil {
		t.Fatal(err)
	}
	if got := cmd.wiring.EventLog.Dirs; !slices.Equal(got, []string{"/var/log/spark-events", "/srv/logs"}) {
		t.Errorf("--eventlog.dir became %q", got)
	}
}
