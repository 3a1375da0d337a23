package codec

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestZstdWindow(t *testing.T) {
	data := bytes.Repeat([]byte(`{"Event":"SparkListenerTaskEnd"}`+"\n"), 1<<15)
	for _, want := range []int{1 << 20, 8 << 20} {
		var file bytes.Buffer
		enc, err := zstd.NewWriter(&file, zstd.WithWindowSize(want), zstd.WithSingleSegment(false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enc.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		if got := ZstdWindow(file.Bytes()[:18]); got != int64(want) {
			t.Errorf("window %d declared, read %d", want, got)
		}
	}
	for _, head := range [][]byte{nil, []byte(`{"Event":"SparkListenerLogStart"}`), {0x28, 0xb5, 0x2f}} {
		if got := ZstdWindow(head); got != 0 {
			t.Errorf("ZstdWindow(%q) = %d, want 0", head, got)
		}
	}
}
