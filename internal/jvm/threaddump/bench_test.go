package threaddump

import (
	"fmt"
	"strings"
	"testing"
)

// dump200 builds a 200-thread dump from the Java thread blocks of the
// shared sample, renamed so that every thread is distinct.
func dump200(b *testing.B) string {
	first, _ := sampleDumps(b)
	blocks := strings.Split(first, "\n\n")
	var java []string
	for _, blk := range blocks {
		if strings.HasPrefix(blk, "\"") && strings.Contains(blk, "java.lang.Thread.State") {
			java = append(java, blk)
		}
	}
	var sb strings.Builder
	sb.WriteString(blocks[0] + "\n\n")
	for i := range 200 {
		blk := java[i%len(java)]
		fmt.Fprintf(&sb, "\"t%d-%s\n\n", i, blk[1:])
	}
	return sb.String()
}

func BenchmarkParse200Threads(b *testing.B) {
	text := dump200(b)
	d, err := ParseString(text)
	if err != nil || len(d.Threads) != 200 || d.Skipped != 0 {
		b.Fatalf("%v: %d threads, %d skipped", err, len(d.Threads), d.Skipped)
	}
	data := []byte(text)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
