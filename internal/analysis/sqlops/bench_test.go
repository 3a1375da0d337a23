package sqlops_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// decompressed reads a whole zstd log into memory so the codec is not
// measured.
func decompressed(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	data, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func eachLine(data []byte, fn func([]byte)) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) > 0 {
			fn(line)
		}
	}
}

// BenchmarkSQLOverhead: decoding alone, decoding + the SQL model alone,
// and decoding + the whole analysis (which includes the SQL model) over
// nds_q88 (Photon, 142 MB decoded). SQL share of analyze =
// (sqlops − decode) / (analyze − (sqlops − decode)).
//
//	go test -run '^$' -bench SQLOverhead -benchmem ./collectors/analysis/sqlops/
func BenchmarkSQLOverhead(b *testing.B) {
	data := decompressed(b, testkit.Events(b, "extra/spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd"))
	run := func(b *testing.B, add func() func(sparkevent.Event), finish func()) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			d := sparkevent.NewDecoder()
			fn := add()
			eachLine(data, func(line []byte) {
				if ev, err := d.Decode(line); err == nil && fn != nil {
					fn(ev)
				}
			})
			if finish != nil {
				finish()
			}
		}
	}
	b.Run("decode", func(b *testing.B) { run(b, func() func(sparkevent.Event) { return nil }, nil) })
	var m *sqlops.Model
	b.Run("decode+sqlops", func(b *testing.B) {
		run(b, func() func(sparkevent.Event) { m = sqlops.NewModel(sqlops.Options{}); return m.Add },
			func() { _ = sqlops.Findings(m.Executions(), sqlops.DefaultThresholds()) })
	})
	var a *analysis.App
	b.Run("decode+analyze", func(b *testing.B) {
		run(b, func() func(sparkevent.Event) { a = analysis.New(analysis.DefaultConfig()); return a.Add }, func() { _ = a.Report() })
	})
}
