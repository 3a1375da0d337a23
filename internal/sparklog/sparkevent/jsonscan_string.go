package sparkevent

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

const (
	swarOnes   = 0x0101010101010101
	swarHigh   = 0x8080808080808080
	swarQuote  = 0x2222222222222222 // '"' in every byte
	swarBslash = 0x5c5c5c5c5c5c5c5c // '\\' in every byte
	swarSpace  = 0x2020202020202020 // 0x20 in every byte
)

// scanPlain returns the index of the first byte at or after i that ends the
// plain part of a JSON string: '"', '\\' or a control character (which JSON
// forbids unescaped), or len(b). It tests eight bytes per step: string
// contents are most of an event log's bytes.
func scanPlain(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ swarQuote
		e := x ^ swarBslash
		// A byte of the mask is set where q or e is zero or x < 0x20. The
		// lowest set byte is exact: borrows only run upwards from a match.
		m := ((q - swarOnes) &^ q) | ((e - swarOnes) &^ e) | ((x - swarSpace) &^ x)
		m &= swarHigh
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// rawString reads the string at the cursor and returns its contents: a
// sub-slice of the input when it has no escapes, else the unescaped bytes
// in strBuf. Either way the result is only valid until the next read.
// The caller has checked that the cursor is on '"'.
func (s *scanner) rawString() []byte {
	start := s.pos + 1
	end := scanPlain(s.buf, start)
	if end < len(s.buf) && s.buf[end] == '"' {
		s.pos = end + 1
		return s.buf[start:end]
	}
	s.strBuf = s.unescape(s.strBuf[:0], start, end)
	return s.strBuf
}

// unescape appends the string whose contents start at start, and whose
// first byte needing care is at i, to dst; it leaves the cursor after the
// closing quote. Invalid escapes and raw control characters are errors.
// Lone UTF-16 surrogates become U+FFFD, as in encoding/json.
func (s *scanner) unescape(dst []byte, start, i int) []byte {
	b := s.buf
	dst = append(dst, b[start:i]...)
	for {
		if i >= len(b) {
			s.pos = i
			s.syntaxErr(" in string")
			return dst
		}
		switch c := b[i]; {
		case c == '"':
			s.pos = i + 1
			return dst
		case c < 0x20:
			s.pos = i
			s.syntaxErr(" in string (control characters must be escaped)")
			return dst
		case c == '\\':
			var ok bool
			dst, i, ok = s.escape(dst, i)
			if !ok {
				return dst
			}
		}
		j := scanPlain(b, i)
		dst = append(dst, b[i:j]...)
		i = j
	}
}

// escape decodes the escape sequence at b[i] == '\\', returning the index
// after it.
func (s *scanner) escape(dst []byte, i int) ([]byte, int, bool) {
	b := s.buf
	if i+1 >= len(b) {
		s.pos = i + 1
		s.syntaxErr(" in string escape")
		return dst, i, false
	}
	var c byte
	switch b[i+1] {
	case '"':
		c = '"'
	case '\\':
		c = '\\'
	case '/':
		c = '/'
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r, ok := s.hex4(i + 2)
		if !ok {
			return dst, i, false
		}
		i += 6
		if r >= 0xd800 && r < 0xdc00 && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
			if lo, ok := s.hex4(i + 2); !ok {
				return dst, i, false
			} else if lo >= 0xdc00 && lo < 0xe000 {
				r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
				i += 6
			}
		}
		if r >= 0xd800 && r < 0xe000 {
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r), i, true
	default:
		s.fail(i, true, "invalid escape "+describeByte(b[i+1])+" in string")
		return dst, i, false
	}
	return append(dst, c), i + 2, true
}

// hex4 parses the four hex digits of a \u escape starting at b[i].
func (s *scanner) hex4(i int) (rune, bool) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(s.buf) {
			s.pos = k
			s.syntaxErr(" in \\u escape")
			return 0, false
		}
		c := s.buf[k]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			s.fail(k, true, "invalid hex digit "+describeByte(c)+" in \\u escape")
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipString validates and skips the string at the cursor (on '"').
func (s *scanner) skipString() {
	b := s.buf
	i := s.pos + 1
	for {
		i = scanPlain(b, i)
		if i >= len(b) {
			s.pos = i
			s.syntaxErr(" in string")
			return
		}
		switch c := b[i]; {
		case c == '"':
			s.pos = i + 1
			return
		case c < 0x20:
			s.pos = i
			s.syntaxErr(" in string (control characters must be escaped)")
			return
		}
		// A backslash: validate the escape without keeping its value.
		if i+1 < len(b) && b[i+1] != 'u' {
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				continue
			}
		}
		var ok bool
		s.strBuf, i, ok = s.escape(s.strBuf[:0], i)
		if !ok {
			return
		}
	}
}

// str reads a string value (null reads as ""); other types are shape errors.
func (s *scanner) str() []byte {
	switch s.peek() {
	case '"':
		return s.rawString()
	case 'n':
		s.literal("null")
		return nil
	}
	s.shapeErr("string")
	return nil
}
