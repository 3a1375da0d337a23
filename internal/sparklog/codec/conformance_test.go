package codec

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestSparkJavaCodecs checks every decoder against files the Java codec
// libraries wrote, configured as Spark configures them.
func TestSparkJavaCodecs(t *testing.T) {
	w := newJavaWriter(t)
	big := writeJavaFiles(t, w, testkit.Events(t, sparkLog), sparkRepeat, true)

	for _, sh := range sourceShapes {
		for _, jc := range javaCodecs {
			t.Run("closed/"+jc.java+"/"+sh.name, func(t *testing.T) {
				checkClosed(t, jc.codec, jc.suffix, big.closed[jc.java], big.expected, sh)
			})
			t.Run("inprogress/"+jc.java+"/"+sh.name, func(t *testing.T) { checkLive(t, jc.java, jc.codec, big, sh) })
			t.Run("resume/"+jc.java+"/"+sh.name, func(t *testing.T) { checkResume(t, jc.codec, big.closed[jc.java], big.expected, sh) })
		}
		t.Run("lz4-damaged-block/"+sh.name, func(t *testing.T) { checkLZ4Damage(t, big.closed["lz4"], big.expected, sh) })
		for _, tc := range []struct {
			java    string
			c       Codec
			clobber byte
		}{{"lz4", LZ4, 'X'}, {"zstd", Zstd, 0}, {"lzf", LZF, 'X'}, {"snappy", Snappy, 0xFF}} {
			t.Run("damaged-block/"+tc.java+"/"+sh.name, func(t *testing.T) {
				checkDamagedBlock(t, tc.c, big.closed[tc.java], big.expected, tc.clobber, sh)
			})
		}
	}

	// A 5 KB log, seven times: small enough to cut at every offset, big
	// enough for two 32 KiB blocks.
	small := writeJavaFiles(t, w, testkit.Events(t, "local-1430917381535_1"), 7, false)
	for _, sh := range sourceShapes {
		for _, jc := range javaCodecs {
			if sh.name != plainShape.name && jc.codec == Plain {
				continue // every byte is a boundary and nothing is peeked: the plain shape is enough
			}
			t.Run("truncated-everywhere/"+jc.java+"/"+sh.name, func(t *testing.T) {
				checkEveryTruncation(t, jc.codec, small.closed[jc.java], small.expected, sh)
			})
		}
	}
}

func checkClosed(t *testing.T, c Codec, suffix string, file, expected []byte, sh sourceShape) {
	if got, err := Detect("app-20240101"+suffix, file[:min(len(file), 16)]); err != nil || got != c {
		t.Errorf("Detect = %v, %v; want %v", got, err, c)
	}
	d := decodeShaped(t, c, file, sh)
	if d.final != io.EOF || len(d.corrupts) > 0 {
		t.Fatalf("final %v, corrupt %v", d.final, d.corrupts)
	}
	if !bytes.Equal(d.data, expected) {
		t.Fatalf("decoded %d bytes, want %d; first difference at %d", len(d.data), len(expected), firstDiff(d.data, expected))
	}
	t.Logf("%d compressed bytes -> %d", len(file), len(d.data))
}

// checkLive reads a file whose writer halted without closing: everything
// up to the last flush must come back (for Spark's lz4, which does not flush
// partial blocks, all complete 32 KiB blocks), then truncation or EOF.
func checkLive(t *testing.T, java string, c Codec, f *javaFiles, sh sourceShape) {
	d := decodeShaped(t, c, f.live[java], sh)
	if len(d.corrupts) > 0 || (d.final != io.EOF && !isTruncated(d.final)) {
		t.Fatalf("final %v, corrupt %v", d.final, d.corrupts)
	}
	written := f.expected[:f.liveWrote]
	if !bytes.HasPrefix(written, d.data) {
		t.Fatalf("decoded bytes are not a prefix of what was written (differ at %d)", firstDiff(d.data, written))
	}
	want := f.liveFlush
	if java == "lz4" {
		if len(d.data)%(32<<10) != 0 {
			t.Errorf("lz4 without syncFlush: decoded %d bytes, not whole 32 KiB blocks", len(d.data))
		}
		want -= 32 << 10
	}
	if int64(len(d.data)) < want {
		t.Fatalf("decoded %d bytes, but %d were flushed (written %d)", len(d.data), f.liveFlush, f.liveWrote)
	}
	t.Logf("written %d, flushed %d, decoded %d, final %v", f.liveWrote, f.liveFlush, len(d.data), d.final)
}

// checkResume follows the file as if it grew in steps: each step reopens
// the file, cut at that step's size, at the boundary before the last
// complete line read so far, and continues.
func checkResume(t *testing.T, c Codec, file, expected []byte, sh sourceShape) {
	const steps = 37
	var (
		cp       Checkpoint
		lineEnd  int64
		reopened int
	)
	for i := 1; i <= steps; i++ {
		cut := int64(len(file)) * int64(i) / steps
		if cp.In > cut {
			continue // the next boundary lies beyond this size: nothing to do yet
		}
		r, err := NewReader(c, sh.wrap(bytes.NewReader(file[cp.In:cut])), cp)
		if err != nil {
			t.Fatal(err)
		}
		reopened++
		d := drain(t, r, 4093)
		if len(d.corrupts) > 0 || (d.final != io.EOF && !isTruncated(d.final)) {
			t.Fatalf("step %d (cut %d, from %+v): final %v, corrupt %v", i, cut, cp, d.final, d.corrupts)
		}
		end := cp.Out + int64(len(d.data))
		if end > int64(len(expected)) || !bytes.Equal(d.data, expected[cp.Out:end]) {
			t.Fatalf("step %d: bytes from %+v differ from the original", i, cp)
		}
		if nl := bytes.LastIndexByte(d.data, '\n'); nl >= 0 {
			lineEnd = max(lineEnd, cp.Out+int64(nl)+1)
		}
		next := r.Boundary(lineEnd)
		if next.Out > lineEnd || next.In > cut || next.Out < cp.Out || next.In < cp.In {
			t.Fatalf("step %d: Boundary(%d) = %+v after %+v (cut %d)", i, lineEnd, next, cp, cut)
		}
		cp = next
		if i == steps && (d.final != io.EOF || end != int64(len(expected))) {
			t.Fatalf("whole file: ended at %d of %d with %v", end, len(expected), d.final)
		}
	}
	if c != Gzip && cp.In == 0 {
		t.Errorf("never found a boundary past the start")
	}
	t.Logf("%d reopenings, last boundary %+v", reopened, cp)
}

// checkLZ4Damage flips a byte inside the third block's payload: that block,
// and only it, is reported and skipped.
func checkLZ4Damage(t *testing.T, file, expected []byte, sh sourceShape) {
	blocks := lz4Blocks(t, file)
	if len(blocks) < 5 {
		t.Fatalf("only %d blocks", len(blocks))
	}
	bad := blocks[2]
	damaged := bytes.Clone(file)
	damaged[bad.in+lz4HeaderLen+bad.clen/2] ^= 0x5A
	d := decodeShaped(t, LZ4, damaged, sh)
	if len(d.corrupts) != 1 || d.corrupts[0].Offset != int64(bad.in) || d.final != io.EOF {
		t.Fatalf("corrupt %v final %v; want one at offset %d", d.corrupts, d.final, bad.in)
	}
	want := append(bytes.Clone(expected[:bad.out]), expected[bad.out+bad.olen:]...)
	if !bytes.Equal(d.data, want) {
		t.Fatalf("got %d bytes, want %d (all but block 3)", len(d.data), len(want))
	}
	t.Logf("reported: %v", d.corrupts[0])

	// A damaged header loses only that block too: the reader finds the next magic.
	damaged = bytes.Clone(file)
	damaged[bad.in+3] = 'X'
	d = decodeShaped(t, LZ4, damaged, sh)
	if len(d.corrupts) != 1 || d.corrupts[0].Offset != int64(bad.in) || !bytes.Equal(d.data, want) {
		t.Fatalf("bad magic: corrupt %v, %d bytes", d.corrupts, len(d.data))
	}
}

type lz4Block struct{ in, out, clen, olen int }

// lz4Blocks lists the blocks of an lz4-java stream (test-side parser).
func lz4Blocks(t *testing.T, file []byte) []lz4Block {
	var blocks []lz4Block
	out := 0
	for in := 0; in+lz4HeaderLen <= len(file); {
		if !bytes.HasPrefix(file[in:], lz4Magic) {
			t.Fatalf("no magic at %d", in)
		}
		b := lz4Block{in: in, out: out, clen: int(binary.LittleEndian.Uint32(file[in+9:])), olen: int(binary.LittleEndian.Uint32(file[in+13:]))}
		blocks = append(blocks, b)
		in += lz4HeaderLen + b.clen
		out += b.olen
	}
	return blocks
}

// checkEveryTruncation cuts the file at every offset within 48 bytes of a
// block boundary (where every header is) and at a grid of other offsets:
// never a panic or a corruption report, only truncation or EOF, and
// always a prefix of the original. Shapes other than plain are cut only
// just after each boundary, inside the headers, which keeps the run short.
func checkEveryTruncation(t *testing.T, c Codec, file, expected []byte, sh sourceShape) {
	const near, gridCuts = 48, 1500
	cuts := map[int]bool{len(file): true}
	from, to := -near, near
	if sh.name != plainShape.name {
		// Other shapes only matter where a header is being read: just
		// after a boundary (the longest header, zstd's, is 18 bytes).
		from, to = 0, 24
	}
	for _, cp := range boundaries(t, c, file) {
		for cut := max(0, int(cp.In)+from); cut <= min(len(file), int(cp.In)+to); cut++ {
			cuts[cut] = true
		}
	}
	for cut := 0; cut < len(file) && sh.name == plainShape.name; cut += max(1, len(file)/gridCuts) {
		cuts[cut] = true
	}
	eofs := 0
	for cut := range cuts {
		d := decodeShaped(t, c, file[:cut], sh)
		if len(d.corrupts) > 0 || (d.final != io.EOF && !isTruncated(d.final)) {
			t.Fatalf("cut at %d: final %v, corrupt %v", cut, d.final, d.corrupts)
		}
		if !bytes.HasPrefix(expected, d.data) {
			t.Fatalf("cut at %d: output is not a prefix of the original", cut)
		}
		if d.final == io.EOF {
			eofs++
		}
	}
	t.Logf("%d bytes, %d cuts, %d at a boundary", len(file), len(cuts), eofs)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
