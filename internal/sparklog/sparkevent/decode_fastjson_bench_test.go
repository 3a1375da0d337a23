package sparkevent

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"

	"github.com/valyala/fastjson"
)

// BenchmarkDecodeVsFastjson measures the hand-written decoder against a
// maintained parser on the same lines: every line of the 142 MB real log
// (89% of its bytes are TaskEnd lines full of accumulables), held in memory
// so that only parsing is timed.
//
//   - sparklog: Decoder.Decode, every field the analysis reads, typed.
//   - fastjson: fastjson.Parser.ParseBytes (a reused parser) plus typed
//     reads of the event name and, for TaskEnd, the stage and task ids,
//     times, executor CPU time and each accumulable's id, name and update:
//     a subset of what Decode builds, so a lower bound for a switch.
func BenchmarkDecodeVsFastjson(b *testing.B) {
	lines := loadLines(b, eventtest.BigLogFile(b))
	b.Run("sparklog", func(b *testing.B) {
		b.SetBytes(eventtest.BigLogBytes)
		d := NewDecoder()
		for b.Loop() {
			for _, line := range lines {
				if _, err := d.Decode(line); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("fastjson", func(b *testing.B) {
		b.SetBytes(eventtest.BigLogBytes)
		var p fastjson.Parser
		var sink int64
		for b.Loop() {
			for _, line := range lines {
				v, err := p.ParseBytes(line)
				if err != nil {
					b.Fatal(err)
				}
				if string(v.GetStringBytes("Event")) != TypeTaskEnd {
					continue
				}
				sink += v.GetInt64("Stage ID")
				info := v.Get("Task Info")
				sink += info.GetInt64("Task ID") + info.GetInt64("Launch Time") + info.GetInt64("Finish Time")
				sink += v.GetInt64("Task Metrics", "Executor CPU Time")
				for _, acc := range info.GetArray("Accumulables") {
					sink += acc.GetInt64("ID") + int64(len(acc.GetStringBytes("Name")))
					if u := acc.Get("Update"); u != nil && u.Type() == fastjson.TypeNumber {
						sink += u.GetInt64()
					}
				}
			}
		}
		if sink == 0 {
			b.Fatal("nothing read")
		}
	})
}

// loadLines reads a plain log into memory, one slice per non-empty line.
func loadLines(b *testing.B, path string) [][]byte {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	br := bufio.NewReaderSize(f, 4<<20)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSuffix(line, []byte("\n")); len(line) > 0 {
			lines = append(lines, line)
		}
		if err == io.EOF {
			return lines
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
