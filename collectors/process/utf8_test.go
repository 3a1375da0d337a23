package process

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
)

// Application and executor ids come from a JVM's command line, which may
// hold any bytes: one invalid UTF-8 byte must not make the scrape fail.
// The series is kept with U+FFFD in place of the byte.
func TestInvalidUTF8FromCmdline(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	f.writeProc(4848, "java", 200000, 100, []string{"java", "-cp", "x",
		"org.apache.spark.executor.CoarseGrainedExecutorBackend", "--executor-id", "9\xff", "--app-id", "app-\xff1"}, "0::/\n")
	a := f.agent(Options{TDPWatts: 100})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(a))
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	found := false
	for _, mf := range families {
		for _, m := range mf.Metric {
			ls := labelString(m)
			if !utf8.ValidString(ls) {
				t.Errorf("%s%s is not valid UTF-8", mf.GetName(), ls)
			}
			if mf.GetName() == "spark_process_cpu_seconds_total" && strings.Contains(ls, `app_id="app-`+"\uFFFD"+`1"`) &&
				strings.Contains(ls, `executor_id="9`+"\uFFFD"+`"`) {
				found = true
			}
		}
	}
	if !found {
		t.Error("no spark_process_cpu_seconds_total series for app-\\uFFFD1 executor 9\\uFFFD")
	}
}
