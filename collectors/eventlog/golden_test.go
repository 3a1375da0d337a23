package eventlog

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-scrape.prom")

// goldenLogs are three real logs of different shapes: YARN with executors
// removed and a killed task (Spark 3.1), standalone with failed tasks
// (Spark 2.1), and local mode without LogStart (Spark 1.2).
var goldenLogs = []string{"application_1628109047826_1317105", "app-20161116163331-0000", "local-1422981759269"}

// The spark_* lines of a scrape of three real logs match the golden file.
//
// Checked by hand once against the raw JSON lines (python json module,
// summing over SparkListenerTaskEnd):
//   - application_1628109047826_1317105: Success×4, TaskKilled×1 → tasks
//     success 4, killed 1, failed 0; ApplicationStart 1628637895333 ms,
//     ApplicationEnd 1628638170208 ms; run seconds (Finish−Launch) per
//     executor 7: 55.435, 5: 2.647, 8: 5.124, 10: 63.773, others 0; CPU
//     seconds 10: 0.066656136, 5: 0.076317261, 7: 0.065263482,
//     8: 0.076094097.
//   - app-20161116163331-0000: Success×16, ExceptionFailure×8 → success 16,
//     failed 8; no input bytes anywhere.
//   - local-1422981759269: driver only, 33 successes, run 9.978 s, input
//     28000288 bytes; no CPU time before Spark 2.1, so cpu series are 0.
func TestGoldenScrape(t *testing.T) {
	src := filepath.Dir(testkit.Events(t, "README.md"))
	dir := t.TempDir()
	for _, n := range goldenLogs {
		if err := os.Symlink(filepath.Join(src, n), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	base, w := startExporter(t, testConfig(dir))
	waitReady(t, w)
	var lines []string
	for _, l := range strings.Split(httpGet(t, base+"/metrics"), "\n") {
		if strings.HasPrefix(l, "spark_") || strings.HasPrefix(l, "# HELP spark_") || strings.HasPrefix(l, "# TYPE spark_") {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "golden-scrape.prom")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("scrape differs from %s at line %d:\n got  %s\n want %s\n(run go test -run TestGoldenScrape -update after checking by hand)", path, i+1, g, w)
			}
		}
	}
}
