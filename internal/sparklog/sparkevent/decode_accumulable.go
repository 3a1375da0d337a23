package sparkevent

import (
	"bytes"
	"encoding/binary"
)

// Accumulables are most of a task's line (a Databricks TaskEnd carries
// hundreds, and they are nine tenths of nds_q88's bytes), and Spark writes
// every one the same way: JsonProtocol's accumulableInfoToJson emits
//
//	{"ID":8,"Name":"…","Update":…,"Value":…,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}
//
// with no whitespace, the keys in that order and Name, Update, Value and
// Metadata only when defined. accumulableFast reads exactly that layout by
// matching the fixed key text in place, and gives up, with the cursor
// unmoved, at the first byte that differs (another order, whitespace, an
// escape, a fraction, a list of blocks); the general decoder then reads the
// object from its start, so both paths give the same Accumulable.

// accNameSlots is the size of the direct-mapped cache of accumulator names
// by ID: an accumulator keeps its name for the life of the application, so
// a name seen once is then recognised by comparing bytes, with no scan for
// its end and no hash.
const accNameSlots = 4096

type accName struct {
	id   int64
	name string
}

// The keys are matched as the little-endian words that cover them: the
// first 8 bytes and the last 8 (overlapping for keys under 16 bytes), and
// the middle 8 of the one longer key. Constant words make each match two
// compares with immediates, where comparing strings would call memequal
// for every key of every accumulable. TestAccumulableKeyWords checks each
// word against its text.
const (
	keyNameLen, keyNameHead, keyNameTail             = 9, 0x3a22656d614e222c, 0x223a22656d614e22  // ,"Name":"
	keyUpdateLen, keyUpdateHead, keyUpdateTail       = 10, 0x657461647055222c, 0x3a22657461647055 // ,"Update":
	keyValueLen, keyValueHead, keyValueTail          = 9, 0x2265756c6156222c, 0x3a2265756c615622  // ,"Value":
	keyInternalLen, keyInternalHead, keyInternalTail = 12, 0x6e7265746e49222c, 0x3a226c616e726574 // ,"Internal":
	keyCountLen, keyCountHead, keyCountTail          = 23, 0x20746e756f43222c, 0x3a227365756c6156 // ,"Count Failed Values":
	keyCountMid                                      = 0x562064656c696146                         // bytes 8-15 of it
	keyMetadataLen, keyMetadataHead, keyMetadataTail = 13, 0x61646174654d222c, 0x223a226174616461 // ,"Metadata":"
)

// keyAt reports whether the key of n bytes whose first and last 8 bytes
// are head and tail comes at b[p:].
func keyAt(b []byte, p, n int, head, tail uint64) bool {
	return len(b)-p >= n && binary.LittleEndian.Uint64(b[p:]) == head && binary.LittleEndian.Uint64(b[p+n-8:]) == tail
}

// The shorter texts, as 32-bit words.
const (
	wordID   = uint32('{') | uint32('"')<<8 | uint32('I')<<16 | uint32('D')<<24 // {"ID
	wordTrue = uint32('t') | uint32('r')<<8 | uint32('u')<<16 | uint32('e')<<24
	wordAlse = uint32('a') | uint32('l')<<8 | uint32('s')<<16 | uint32('e')<<24
	wordSQL  = uint32('s') | uint32('q')<<8 | uint32('l')<<16 | uint32('"')<<24 // sql"
)

func word32At(b []byte, p int, w uint32) bool {
	return len(b)-p >= 4 && binary.LittleEndian.Uint32(b[p:]) == w
}

// accumulableFast decodes the accumulable at the cursor if it is written
// exactly as Spark writes it, and reports whether it did and where its
// Update value starts and its Value ends (-1 when either is absent).
func (d *Decoder) accumulableFast(a *Accumulable) (updAt, valEnd int, ok bool) {
	updAt, valEnd = -1, -1
	b := d.buf
	p := d.pos
	if !word32At(b, p, wordID) || len(b)-p < 6 || b[p+4] != '"' || b[p+5] != ':' {
		return 0, 0, false
	}
	id, p, ok := plainInt(b, p+6)
	if !ok {
		return 0, 0, false
	}
	out := Accumulable{ID: id}
	if keyAt(b, p, keyNameLen, keyNameHead, keyNameTail) {
		if out.Name, p, ok = d.accName(b, p+keyNameLen, id); !ok {
			return 0, 0, false
		}
	}
	var updNum, valNum, hasVal bool
	if keyAt(b, p, keyUpdateLen, keyUpdateHead, keyUpdateTail) {
		updAt = p + keyUpdateLen
		if out.Update, updNum, p, ok = flexIntAt(b, p+keyUpdateLen); !ok {
			return 0, 0, false
		}
		out.HasUpdate = true
	}
	if keyAt(b, p, keyValueLen, keyValueHead, keyValueTail) {
		if out.Value, valNum, p, ok = flexIntAt(b, p+keyValueLen); !ok {
			return 0, 0, false
		}
		valEnd = p
		hasVal = true
	}
	if keyAt(b, p, keyInternalLen, keyInternalHead, keyInternalTail) {
		if out.Internal, p, ok = boolAt(b, p+keyInternalLen); !ok {
			return 0, 0, false
		}
	}
	if keyAt(b, p, keyCountLen, keyCountHead, keyCountTail) && binary.LittleEndian.Uint64(b[p+8:]) == keyCountMid {
		if out.CountFailedValues, p, ok = boolAt(b, p+keyCountLen); !ok {
			return 0, 0, false
		}
	}
	if keyAt(b, p, keyMetadataLen, keyMetadataHead, keyMetadataTail) {
		p += keyMetadataLen
		if word32At(b, p, wordSQL) {
			out.Metadata, p = "sql", p+4
		} else {
			end := scanPlain(b, p)
			if end >= len(b) || b[end] != '"' {
				return 0, 0, false
			}
			out.Metadata, p = d.intern.get(b[p:end]), end+1
		}
	}
	if p >= len(b) || b[p] != '}' {
		return 0, 0, false
	}
	// Numeric when every value present is an integer, as in accumulable.
	out.Numeric = (out.HasUpdate || hasVal) && (!out.HasUpdate || updNum) && (!hasVal || valNum)
	if !out.Numeric {
		out.Update, out.Value = 0, 0
	}
	*a = out
	d.pos = p + 1
	return updAt, valEnd, true
}

// accName reads a name without escapes that starts at p, ending at its
// closing quote, and returns the position after that quote.
func (d *Decoder) accName(b []byte, p int, id int64) (string, int, bool) {
	slot := &d.accNames[uint64(id)%accNameSlots]
	if slot.id == id && slot.name != "" && len(b)-p > len(slot.name) && string(b[p:p+len(slot.name)]) == slot.name {
		if q := p + len(slot.name); q < len(b) && b[q] == '"' {
			return slot.name, q + 1, true
		}
	}
	end := scanPlain(b, p)
	if end >= len(b) || b[end] != '"' {
		return "", 0, false
	}
	name := d.intern.get(b[p:end])
	*slot = accName{id: id, name: name}
	return name, end + 1, true
}

// plainInt reads a JSON integer at p (an optional minus, digits without a
// leading zero, at most 18 of them so it cannot overflow) followed by
// neither a fraction nor an exponent.
func plainInt(b []byte, p int) (int64, int, bool) {
	v, start, p := signedDigits(b, p)
	n := p - start
	if n == 0 || n > 18 || (n > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if p < len(b) && (b[p] == '.' || b[p] == 'e' || b[p] == 'E') {
		return 0, 0, false
	}
	return v, p, true
}

// signedDigits reads an optional minus and a run of decimal digits at p:
// their value (exact for up to 18 digits), where the digits start and
// where they end.
func signedDigits(b []byte, p int) (v int64, start, end int) {
	neg := p < len(b) && b[p] == '-'
	if neg {
		p++
	}
	start = p
	for ; p < len(b) && b[p]-'0' < 10; p++ {
		v = v*10 + int64(b[p]-'0')
	}
	if neg {
		v = -v
	}
	return v, start, p
}

// flexIntAt reads an accumulable value at p: a plain integer, or a string
// without escapes, which is numeric when it holds a decimal integer (as
// flexInt reads it). Anything else is left to the general decoder.
func flexIntAt(b []byte, p int) (v int64, numeric bool, next int, ok bool) {
	if p < len(b) && b[p] == '"' {
		// Most are decimal: read the digits, and look for the end of
		// anything else only when the digits stop short of the quote.
		if q, ok := quotedDecimal(b, p+1); ok {
			return q.v, true, q.next, true
		}
		end := scanPlain(b, p+1)
		if end >= len(b) || b[end] != '"' {
			return 0, false, 0, false
		}
		v, numeric = parseDecimal(b[p+1 : end])
		return v, numeric, end + 1, true
	}
	v, next, ok = plainInt(b, p)
	return v, ok, next, ok
}

type decimal struct {
	v    int64
	next int
}

// quotedDecimal reads "<digits>" from just after the opening quote: an
// optional minus and 1 to 18 digits (parseDecimal takes leading zeros).
func quotedDecimal(b []byte, p int) (decimal, bool) {
	v, start, p := signedDigits(b, p)
	if n := p - start; n == 0 || n > 18 || p >= len(b) || b[p] != '"' {
		return decimal{}, false
	}
	return decimal{v, p + 1}, true
}

func boolAt(b []byte, p int) (bool, int, bool) {
	switch {
	case word32At(b, p, wordTrue):
		return true, p + 4, true
	case len(b)-p >= 5 && b[p] == 'f' && word32At(b, p+1, wordAlse):
		return false, p + 5, true
	}
	return false, 0, false
}

// Within a stage, the k-th accumulable of a task's list is nearly always
// the k-th of the last task's, written with the same bytes but for its
// Update and Value: the same ID, name, flags and metadata. An accShape
// keeps the bytes of the k-th entry of the last list before its Update
// value (from its opening brace) and after its Value (to its closing
// brace), and what they decoded to; an entry that begins and ends with
// exactly those bytes around two values is that entry with those values,
// found with two comparisons and the two numbers read. (The values are
// read as accumulableFast reads them, so each ends where it would there;
// the rest, as for repeat, is bytes whose meaning does not depend on what
// follows them.)
type accShape struct {
	head, tail []byte
	acc        Accumulable // without its Update and Value
}

// maxAccShapes bounds the positions remembered: a list rarely has more.
const maxAccShapes = 1024

// accumulableAt decodes the accumulable at the cursor, the k-th of its
// list, into a.
func (d *Decoder) accumulableAt(k int, a *Accumulable) {
	if k < len(d.accShapes) && d.accumulableAsShape(&d.accShapes[k], a) {
		return
	}
	start := d.pos
	updAt, valEnd, ok := d.accumulableFast(a)
	if !ok {
		d.accumulable(a)
	}
	if k >= maxAccShapes {
		return
	}
	for len(d.accShapes) <= k {
		d.accShapes = append(d.accShapes, accShape{})
	}
	s := &d.accShapes[k]
	if !ok || updAt < 0 || valEnd < 0 || d.pos-start > maxRepeat {
		s.head = s.head[:0] // not one to predict from
		return
	}
	s.head = append(s.head[:0], d.buf[start:updAt]...)
	s.tail = append(s.tail[:0], d.buf[valEnd:d.pos]...)
	s.acc = *a
	s.acc.Update, s.acc.Value = 0, 0
}

// accumulableAsShape decodes the accumulable at the cursor if it is
// written as s around its two values.
func (d *Decoder) accumulableAsShape(s *accShape, a *Accumulable) bool {
	b, p := d.buf, d.pos
	if len(s.head) == 0 || !bytes.HasPrefix(b[p:], s.head) {
		return false
	}
	upd, updNum, p, ok := flexIntAt(b, p+len(s.head))
	if !ok || !keyAt(b, p, keyValueLen, keyValueHead, keyValueTail) {
		return false
	}
	val, valNum, p, ok := flexIntAt(b, p+keyValueLen)
	if !ok || !bytes.HasPrefix(b[p:], s.tail) {
		return false
	}
	*a = s.acc
	if a.Numeric = updNum && valNum; a.Numeric {
		a.Update, a.Value = upd, val
	}
	d.pos = p + len(s.tail)
	return true
}
