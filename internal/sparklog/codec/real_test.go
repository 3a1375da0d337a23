package codec

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// realCompressedLogs lists every compressed log under shared/spark-events/extra.
func realCompressedLogs(t *testing.T) []string {
	t.Helper()
	root := testkit.Events(t, "extra")
	var files []string
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".zstd") || strings.HasSuffix(p, ".gz") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readmeDecodedSizes are the "uncompr." column of shared/spark-events/README.md
// (sizes measured there with the zstd CLI and Python's gzip).
var readmeDecodedSizes = map[string]int{
	"spark-rapids-tools/spark-events-qualification/aqeshuffle_eventlog.zstd":                                          356025,
	"spark-rapids-tools/spark-events-qualification/db_sim_eventlog/eventlog-2021-06-15--15-00.gz":                     10480446,
	"spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964/events_2_local-1623876083964.zstd": 951074,
	"spark-rapids-tools/spark-events-qualification/nds_q72_dataproc_2_2.zstd":                                         48279502,
	"spark-rapids-tools/spark-events-profiling/spark2-eventlog.zstd":                                                  109645,
}

func TestRealCompressedLogsDecodeCompletely(t *testing.T) {
	files := realCompressedLogs(t)
	checked := 0
	for _, p := range files {
		if _, ok := readmeDecodedSizes[strings.TrimPrefix(p, testkit.Events(t, "extra")+"/")]; ok {
			checked++
		}
	}
	if checked != len(readmeDecodedSizes) {
		t.Fatalf("only %d of the README-sized logs found", checked)
	}
	if len(files) < 15 {
		t.Fatalf("found only %d compressed logs under extra/: %v", len(files), files)
	}
	for _, p := range files {
		name := strings.TrimPrefix(p, testkit.Events(t, "extra")+"/")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			head := make([]byte, 16)
			hn, _ := io.ReadFull(f, head)
			c, err := Detect(p, head[:hn])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(c, f, Checkpoint{})
			if err != nil {
				t.Fatal(err)
			}
			// Count rather than keep: the largest log decodes to 142 MB.
			n, err := io.Copy(io.Discard, r)
			if err != nil {
				t.Fatalf("after %d bytes: %v", n, err)
			}
			if want, ok := readmeDecodedSizes[name]; ok && n != int64(want) {
				t.Errorf("decoded %d bytes, README says %d", n, want)
			}
			t.Logf("%s: %d bytes decoded", c, n)
		})
	}
}
