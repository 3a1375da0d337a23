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
		emptyZstdPools() // nothing to reuse
		return decodeBytes(t, Zstd, file)
	}
	want := make([]drained, len(files))
	for i, f := range files {
		want[i] = fresh(f)
	}
	if want[1].final == nil || !isTruncated(want[1].final) || len(want[2].corrupts) == 0 {
		t.Fatalf("the damaged files read as intact: cut %v, %d corrupt regions", want[1].final, len(want[2].corrupts))
	}
	emptyZstdPools()
	reused := 0
	for round := range 4 {
		for k := range files {
			i := (k*7 + round) % len(files) // every kind of end before every file
			if pooledZstds() > 0 {
				reused++
				emptyZstdPools()
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

// emptyZstdPools drops every pooled zstd decoder.
func emptyZstdPools() {
	for c := range zstdDecoders {
		zstdDecoders[c] = sync.Pool{}
	}
}

// pooledZstds takes the pooled zstd decoders out, counting them.
func pooledZstds() int {
	n := 0
	for c := range zstdDecoders {
		for zstdDecoders[c].Get() != nil {
			n++
		}
	}
	return n
}

// A decoder that has held a big window goes only to frames of a big
// window, and one of small windows only to small ones: a small frame never
// keeps a big ring alive.
func TestZstdBigWindowsPooledApart(t *testing.T) {
	emptyZstdPools()
	t.Cleanup(emptyZstdPools)
	small := &pooledZstd{window: 8 << 20}
	big := &pooledZstd{window: 128 << 20}
	zstdPool(small.window).Put(small)
	zstdPool(big.window).Put(big)
	// Under the race detector a pool drops some of what it is given, so
	// only what comes back is checked.
	if p, err := getZstd(1 << 20); err != nil || p == big {
		t.Errorf("a 1 MiB window got the decoder of 128 MiB (%v)", err)
	}
	if p, err := getZstd(BigZstdWindow); err != nil || p == small {
		t.Errorf("a %d MiB window got the decoder of 8 MiB (%v)", BigZstdWindow>>20, err)
	}
	// Reading a file of a big window pools its decoder as big.
	emptyZstdPools()
	bigFile := zstdFile(t, BigZstdWindow, 1<<16)
	for try := 0; ; try++ {
		decodeBytes(t, Zstd, bigFile)
		if zstdDecoders[0].Get() != nil {
			t.Fatal("the decoder of a big window was pooled as small")
		}
		if p := zstdDecoders[1].Get(); p != nil {
			zstdDecoders[1].Put(p)
			break
		}
		if try == 20 {
			t.Fatal("the decoder of a big window was never pooled")
		}
	}
}

// zstdFile is one frame of window holding lines of a task end.
func zstdFile(t *testing.T, window, lines int) []byte {
	t.Helper()
	var file bytes.Buffer
	enc, err := zstd.NewWriter(&file, zstd.WithWindowSize(window), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(bytes.Repeat([]byte(`{"Event":"SparkListenerTaskEnd"}`+"\n"), lines)); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}
