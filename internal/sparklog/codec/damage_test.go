package codec

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// boundaries lists the distinct boundaries a Reader reports while reading
// file in small pieces (blocks shorter than the piece may be missed).
func boundaries(t *testing.T, c Codec, file []byte) []Checkpoint {
	t.Helper()
	r, err := NewReader(c, bytes.NewReader(file), Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		cps []Checkpoint
		out int64
		buf = make([]byte, 512)
	)
	for range len(file) * 64 { // bounded: far more reads than any file needs
		n, err := r.Read(buf)
		out += int64(n)
		if cp := r.Boundary(out); len(cps) == 0 || cp != cps[len(cps)-1] {
			cps = append(cps, cp)
		}
		if err != nil {
			return cps
		}
	}
	t.Fatal("reader never ended")
	return nil
}

// checkDamagedBlock clobbers the first byte of the k-th block: that block,
// and only it, must be reported (at its offset) and skipped. Snappy has no
// block magic, so there the rest of the stream is lost instead.
func checkDamagedBlock(t *testing.T, c Codec, file, expected []byte, clobber byte, sh sourceShape) {
	cps := boundaries(t, c, file)
	if len(cps) < 6 {
		t.Fatalf("only %d boundaries", len(cps))
	}
	const k = 3
	damaged := bytes.Clone(file)
	damaged[cps[k].In] = clobber
	want := append(bytes.Clone(expected[:cps[k].Out]), expected[cps[k+1].Out:]...)
	if c == Snappy {
		want = expected[:cps[k].Out]
	}
	d := decodeShaped(t, c, damaged, sh)
	if len(d.corrupts) != 1 || d.corrupts[0].Offset != cps[k].In || d.final != io.EOF {
		t.Fatalf("corrupt %v final %v; want one at %d", d.corrupts, d.final, cps[k].In)
	}
	if !bytes.Equal(d.data, want) {
		t.Fatalf("got %d bytes, want %d (all but [%d, %d))", len(d.data), len(want), cps[k].Out, cps[k+1].Out)
	}
	t.Logf("%d boundaries; reported: %v", len(cps), d.corrupts[0])
}

// TestGzipDamage flips a byte inside a Java-independent gzip log: the
// damage is reported once, everything returned before it is a prefix.
func TestGzipDamage(t *testing.T) {
	path := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "db_sim_eventlog", "eventlog-2021-06-15--15-00.gz")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := decodeBytes(t, Gzip, file).data
	file[len(file)/2] ^= 0xFF
	d := decodeBytes(t, Gzip, file)
	if len(d.corrupts) != 1 || d.corrupts[0].Offset != 0 || d.final != io.EOF {
		t.Fatalf("corrupt %v, final %v", d.corrupts, d.final)
	}
	// Deflate may decode a damaged block into wrong bytes that only the
	// trailing CRC catches, so what is guaranteed is the intact part before
	// the damage.
	if intact := firstDiff(d.data, whole); intact < len(whole)/3 {
		t.Fatalf("only %d of %d bytes intact", intact, len(whole))
	}
	t.Logf("returned %d of %d bytes, first %d intact; %v", len(d.data), len(whole), firstDiff(d.data, whole), d.corrupts[0])
}

// TestZstdUnfinishedFrame: a frame cut short yields all its complete blocks
// and then ErrTruncated. The oracle is klauspost's own stream decoder on the
// same cut input, which returns every complete block before failing.
func TestZstdUnfinishedFrame(t *testing.T) {
	content, err := os.ReadFile(testkit.Events(t, sparkLog))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(content, nil) // one frame of 64 KiB blocks
	for _, sh := range sourceShapes {
		for _, cut := range []int{len(frame) * 2 / 3, len(frame) - 10} {
			checkZstdCut(t, frame, cut, content, sh)
		}
	}
	// The content checksum catches damage the blocks themselves do not.
	frame[len(frame)-1] ^= 1
	for _, sh := range sourceShapes {
		d := decodeShaped(t, Zstd, frame, sh)
		if len(d.corrupts) != 1 || d.final != io.EOF {
			t.Fatalf("%s: bad checksum: corrupt %v final %v", sh.name, d.corrupts, d.final)
		}
	}
}

// checkZstdCut decodes frame cut at cut, delivered in shape sh, and
// compares with klauspost's stream decoder.
func checkZstdCut(t *testing.T, frame []byte, cut int, content []byte, sh sourceShape) {
	t.Helper()
	d := decodeShaped(t, Zstd, frame[:cut], sh)
	if !isTruncated(d.final) || len(d.corrupts) > 0 || !bytes.HasPrefix(content, d.data) {
		t.Fatalf("%s: cut %d: final %v corrupt %v", sh.name, cut, d.final, d.corrupts)
	}
	oracle, err := zstd.NewReader(bytes.NewReader(frame[:cut]), zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(oracle)
	oracle.Close()
	if len(d.data) == 0 || len(d.data) != len(want) {
		t.Fatalf("%s: cut %d of %d: decoded %d bytes, klauspost's stream decoder %d", sh.name, cut, len(frame), len(d.data), len(want))
	}
	t.Logf("%s: cut %d of %d: %d bytes", sh.name, cut, len(frame), len(d.data))
}

// TestGarbage feeds random bytes to every decoder: no panic, bounded
// output, damage reported, and the reader ends.
func TestGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 256<<10)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	garbage[0] = 0xAB // no codec's magic
	for _, sh := range sourceShapes {
		for _, c := range []Codec{Zstd, LZ4, Snappy, LZF, Gzip} {
			d := decodeShaped(t, c, garbage, sh)
			if len(d.corrupts) == 0 || len(d.data) > 4*len(garbage) {
				t.Errorf("%s/%s: %d corrupt reports, %d bytes out", c, sh.name, len(d.corrupts), len(d.data))
			}
			if d.final != io.EOF && !isTruncated(d.final) {
				t.Errorf("%s/%s: final %v", c, sh.name, d.final)
			}
		}
	}
}

// TestEmptyInput: an empty (just created) live log is a clean, empty stream.
func TestEmptyInput(t *testing.T) {
	for _, sh := range sourceShapes {
		for _, c := range []Codec{Plain, Zstd, LZ4, Snappy, LZF, Gzip} {
			d := decodeShaped(t, c, nil, sh)
			if d.final != io.EOF || len(d.data) > 0 || len(d.corrupts) > 0 {
				t.Errorf("%s/%s: %+v", c, sh.name, d)
			}
		}
	}
}
