package codec

import (
	"bytes"
	"fmt"
	"sync"
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

// TestZstdDecoderReusedAfterAnyEnd reads zstd files of several windows
// whole, cut off inside a frame and damaged inside a block, in turns, with
// the decoders that finished one stream going on to the next: each must
// give exactly what a new decoder gives, whatever state the last stream
// left its decoder in.
func TestZstdDecoderReusedAfterAnyEnd(t *testing.T) {
	var files [][]byte
	for i, window := range []int{1 << 20, 8 << 20, 1 << 20} {
		data := bytes.Repeat(fmt.Appendf(nil, `{"Event":"SparkListenerTaskEnd","Stage ID":%d}`+"\n", i), 3<<14+i)
		var file bytes.Buffer
		for half := range 2 { // two frames, as Spark writes one per flush
			enc, err := zstd.NewWriter(&file, zstd.WithWindowSize(window), zstd.WithSingleSegment(false))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := enc.Write(data[half*len(data)/2 : (half+1)*len(data)/2]); err != nil {
				t.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
		}
		whole := file.Bytes()
		cut := whole[:len(whole)/3]
		damaged := bytes.Clone(whole)
		for j := len(damaged) / 4; j < len(damaged)/4+64; j++ {
			damaged[j] ^= 0x5a
		}
		files = append(files, whole, cut, damaged)
	}
	fresh := func(file []byte) drained {
		zstdDecoders = sync.Pool{} // nothing to reuse
		return decodeBytes(t, Zstd, file)
	}
	want := make([]drained, len(files))
	for i, f := range files {
		want[i] = fresh(f)
	}
	if want[1].final == nil || !isTruncated(want[1].final) || len(want[2].corrupts) == 0 {
		t.Fatalf("the damaged files read as intact: cut %v, %d corrupt regions", want[1].final, len(want[2].corrupts))
	}
	zstdDecoders = sync.Pool{}
	reused := 0
	for round := range 4 {
		for k := range files {
			i := (k*7 + round) % len(files) // every kind of end before every file
			if zstdDecoders.Get() != nil {
				reused++
				zstdDecoders = sync.Pool{}
				decodeBytes(t, Zstd, files[(i+1)%len(files)]) // leave a decoder in the pool again
			}
			got := decodeBytes(t, Zstd, files[i])
			if !bytes.Equal(got.data, want[i].data) || fmt.Sprint(got.final) != fmt.Sprint(want[i].final) ||
				fmt.Sprint(got.corrupts) != fmt.Sprint(want[i].corrupts) {
				t.Fatalf("round %d, file %d read by a reused decoder: %d bytes, end %v, %d corrupt; a new decoder: %d bytes, end %v, %d corrupt",
					round, i, len(got.data), got.final, len(got.corrupts), len(want[i].data), want[i].final, len(want[i].corrupts))
			}
		}
	}
	if reused == 0 {
		t.Fatal("no decoder was handed on from one stream to the next")
	}
}
