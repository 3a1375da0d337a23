package sparkevent

import "bytes"

// Spark writes many of a task's sub-objects byte for byte as it wrote them
// for the task before: the zeros of the shuffle and I/O metrics, the push-
// based shuffle block, the peak executor metrics (nds_q72: 15 MB of its
// 42 MB of TaskEnd lines repeat the previous TaskEnd's). A repeat keeps
// the bytes of the last value of one kind that decoded cleanly, and what
// they decoded to; a value written with the same bytes at the cursor is
// that same value, so it is taken without being read again. The
// comparison needs no look-ahead: an object (or null) ends at its last
// byte whatever follows, and everything else the decoder keeps between
// values (key orders, name caches, interned strings) only makes reading
// faster, never changes what is read.
type repeat[T any] struct {
	raw []byte
	val T
}

// maxRepeat bounds the bytes a repeat keeps.
const maxRepeat = 4 << 10

// decodeRepeated decodes the value at the cursor into v with decode,
// unless it is written exactly as r's last one, which it then takes; it
// keeps what it decoded, with its bytes, for the next time (unless decoding
// failed or the bytes are too many).
func decodeRepeated[T any](d *Decoder, r *repeat[T], v *T, decode func(*Decoder, *T)) {
	if len(r.raw) > 0 && bytes.HasPrefix(d.buf[d.pos:], r.raw) {
		d.pos += len(r.raw)
		*v = r.val
		return
	}
	start := d.pos
	decode(d, v)
	if d.err != nil || d.pos-start > maxRepeat {
		r.raw = r.raw[:0]
		return
	}
	r.raw = append(r.raw[:0], d.buf[start:d.pos]...)
	r.val = *v
}
