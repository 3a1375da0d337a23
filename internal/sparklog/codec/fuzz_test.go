package codec

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// sampleLines is synthetic Spark-shaped JSON for fuzz seeds.
var sampleLines = []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}
{"Event":"SparkListenerTaskEnd","Stage ID":1,"Task Info":{"Task ID":7,"Executor ID":"driver","Launch Time":1700000000000,"Finish Time":1700000000420},"Task Metrics":{"Executor Run Time":400,"Executor CPU Time":380000000}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1700000000500,"Job Result":{"Result":"JobSucceeded"}}
`)

// fuzzDecode checks the invariants every input must keep: no panic, output
// bounded by the format's best compression ratio, damage offsets inside
// the input, and resuming at a reported boundary reproduces the rest.
func fuzzDecode(t *testing.T, c Codec, data []byte) {
	// zstd RLE blocks are the extreme: 4 bytes for 128 KiB.
	limit := int64(len(data))*40000 + 1<<20
	r, err := NewReader(c, bytes.NewReader(data), Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	buf := make([]byte, 4096)
	for range limit/int64(len(buf)) + int64(len(data)) + 16 {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if int64(out.Len()) > limit {
			t.Fatalf("%d bytes of output from %d of input", out.Len(), len(data))
		}
		var ce *CorruptError
		if errors.As(err, &ce) {
			if ce.Offset < 0 || ce.Offset > int64(len(data)) {
				t.Fatalf("corrupt offset %d outside input of %d", ce.Offset, len(data))
			}
			continue
		}
		if err != nil {
			if err != io.EOF && !errors.Is(err, ErrTruncated) {
				t.Fatalf("unexpected error %v", err)
			}
			break
		}
	}
	whole := out.Bytes()
	cp := r.Boundary(int64(len(whole) / 2))
	if cp.Out > int64(len(whole)/2) || cp.In > int64(len(data)) {
		t.Fatalf("Boundary(%d) = %+v", len(whole)/2, cp)
	}
	r2, err := NewReader(c, bytes.NewReader(data[cp.In:]), cp)
	if err != nil {
		t.Fatal(err)
	}
	rest := drain(t, r2, 4096)
	if !bytes.Equal(rest.data, whole[cp.Out:]) {
		t.Fatalf("resuming at %+v: %d bytes, want %d", cp, len(rest.data), len(whole)-int(cp.Out))
	}
}

func lz4JavaBlock(dst, data []byte, compress bool) []byte {
	token, payload := byte(lz4MethodRaw|5), data
	if compress {
		comp := make([]byte, lz4.CompressBlockBound(len(data)))
		n, _ := lz4.CompressBlock(data, comp, nil)
		token, payload = lz4MethodLZ4|5, comp[:n]
	}
	dst = append(dst, lz4Magic...)
	dst = append(dst, token)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(data)))
	var check uint32
	if len(data) > 0 {
		check = xxh32(data, lz4ChecksumSeed) & lz4ChecksumMask
	}
	dst = binary.LittleEndian.AppendUint32(dst, check)
	return append(dst, payload...)
}

func FuzzLZ4(f *testing.F) {
	s := lz4JavaBlock(nil, sampleLines, true)
	s = lz4JavaBlock(s, sampleLines[:50], false)
	f.Add(s)
	f.Add(lz4JavaBlock(s, nil, false)) // with end mark
	f.Add(lz4JavaBlock(lz4JavaBlock(nil, nil, false), sampleLines, true))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, LZ4, data) })
}

func snappyJavaStream(chunks ...[]byte) []byte {
	s := append(bytes.Clone(snappyMagic), 0, 0, 0, 1, 0, 0, 0, 1)
	for _, c := range chunks {
		enc := snappy.Encode(nil, c)
		s = binary.BigEndian.AppendUint32(s, uint32(len(enc)))
		s = append(s, enc...)
	}
	return s
}

func FuzzSnappy(f *testing.F) {
	one := snappyJavaStream(sampleLines[:100], sampleLines[100:])
	f.Add(one)
	f.Add(append(bytes.Clone(one), snappyJavaStream(sampleLines)...)) // concatenated streams
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, Snappy, data) })
}

func FuzzLZF(f *testing.F) {
	stored := append([]byte{'Z', 'V', lzfStored, 0, byte(len(sampleLines[:200]))}, sampleLines[:200]...)
	// "abc" then a 6-byte match at distance 3, decoding to "abcabcabc".
	compressed := []byte{'Z', 'V', lzfCompressed, 0, 6, 0, 9, 0x02, 'a', 'b', 'c', 0x80, 0x02}
	f.Add(append(stored, compressed...))
	f.Add(compressed)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, LZF, data) })
}

func FuzzZstd(f *testing.F) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		f.Fatal(err)
	}
	frames := enc.EncodeAll(sampleLines, nil)
	frames = append(frames, 0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 'h', 'i') // skippable frame
	frames = enc.EncodeAll(sampleLines[:80], frames)
	f.Add(frames)
	real, err := os.ReadFile(testkit.Events(f, "extra", "spark-rapids-tools", "spark-events-qualification", "aqeshuffle_eventlog.zstd"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real[:1024])
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, Zstd, data) })
}

func FuzzGzip(f *testing.F) {
	var b bytes.Buffer
	for _, part := range [][]byte{sampleLines[:150], sampleLines[150:]} { // two members
		w := gzip.NewWriter(&b)
		w.Write(part)
		w.Close()
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, Gzip, data) })
}
