package codec

import (
	"bytes"
	"io"
	"testing"
)

// Reference values from the xxHash project and python-xxhash's docs.
func TestXXH32(t *testing.T) {
	for in, want := range map[string]uint32{
		"":    0x02CC5D05,
		"a":   0x550D7456,
		"abc": 0x32D153FF,
		"Nobody inspects the spammish repetition": 0xE2293B2F,
	} {
		if got := xxh32([]byte(in), 0); got != want {
			t.Errorf("xxh32(%q) = %#x, want %#x", in, got, want)
		}
	}
}

func TestLZFDecode(t *testing.T) {
	// literal "abc", then a 6-byte match at distance 3 (ctrl 0x80, 0x02):
	// overlapping, so it repeats the pattern.
	out := make([]byte, 9)
	if err := lzfDecode([]byte{0x02, 'a', 'b', 'c', 0x80, 0x02}, out); err != nil || string(out) != "abcabcabc" {
		t.Fatalf("got %q, %v", out, err)
	}
	// long match: length field 7 plus extra byte 3 -> 7+3+2 = 12 bytes at distance 1.
	out = make([]byte, 13)
	if err := lzfDecode([]byte{0x00, 'x', 0xE0, 0x03, 0x00}, out); err != nil || string(out) != "xxxxxxxxxxxxx" {
		t.Fatalf("long match: got %q, %v", out, err)
	}
	for name, in := range map[string][]byte{
		"reference before start": {0x80, 0x00},
		"literal past end":       {0x05, 'a'},
		"match missing distance": {0x00, 'a', 0x20},
		"output too short":       {0x02, 'a', 'b', 'c'},
	} {
		if err := lzfDecode(in, make([]byte, 2)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestBoundaryMemoryIsBounded: boundaries never asked for are thinned, and
// what Boundary returns is still a correct (earlier) boundary.
func TestBoundaryMemoryIsBounded(t *testing.T) {
	var file []byte
	var expected []byte
	for i := range 5000 { // 5000 stored LZF chunks
		chunk := bytes.Repeat([]byte{byte('a' + i%26)}, 10+i%7)
		file = append(file, 'Z', 'V', lzfStored, 0, byte(len(chunk)))
		file = append(file, chunk...)
		expected = append(expected, chunk...)
	}
	r, err := NewReader(LZF, bytes.NewReader(file), Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	d := drain(t, r, 100)
	if d.final != io.EOF || !bytes.Equal(d.data, expected) {
		t.Fatalf("final %v", d.final)
	}
	if len(r.marks) > maxCheckpoints+1 {
		t.Fatalf("%d boundaries kept", len(r.marks))
	}
	for _, out := range []int64{1000, 40000, int64(len(expected))} {
		cp := r.Boundary(out)
		if cp.Out > out || cp.Out < out-4096 {
			t.Fatalf("Boundary(%d) = %+v", out, cp)
		}
		r2, _ := NewReader(LZF, bytes.NewReader(file[cp.In:]), cp)
		rest := drain(t, r2, 999)
		if !bytes.Equal(rest.data, expected[cp.Out:]) {
			t.Fatalf("resuming at %+v differs", cp)
		}
	}
	if len(r.marks) != 1 {
		t.Fatalf("%d boundaries kept after asking for the end", len(r.marks))
	}
}

// TestLZFStoredChunkOnShortReads: ning writes a stored (type 0) chunk for a
// block too short to compress, as a Spark flush leaves. The chunk type must
// be taken before the payload is read: a source delivering a few bytes at a
// time refills the buffer the header was peeked from, and a stored chunk
// read back as a compressed one loses it and the chunks after.
func TestLZFStoredChunkOnShortReads(t *testing.T) {
	first := []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}` + "\n")
	var file []byte
	file = append(file, 'Z', 'V', lzfStored, 0, byte(len(first)))
	file = append(file, first...)
	// A compressed chunk: literal "abc", then a 6-byte repeat of it.
	file = append(file, 'Z', 'V', lzfCompressed, 0, 6, 0, 9, 0x02, 'a', 'b', 'c', 0x80, 0x02)
	// A stored chunk whose first payload byte is 0x01, the compressed type.
	file = append(file, 'Z', 'V', lzfStored, 0, 3, 0x01, 'x', '\n')
	want := append(append(bytes.Clone(first), "abcabcabc"...), 0x01, 'x', '\n')
	for _, sh := range sourceShapes {
		d := decodeShaped(t, LZF, file, sh)
		if d.final != io.EOF || len(d.corrupts) > 0 || !bytes.Equal(d.data, want) {
			t.Errorf("%s: got %q, corrupt %v, final %v; want %q", sh.name, d.data, d.corrupts, d.final, want)
		}
	}
}
