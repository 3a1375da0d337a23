package sparkevent

import (
	"math"
	"strconv"
)

// numKind says what a JSON number token held.
type numKind uint8

const (
	numInt      numKind = iota // an integer that fits int64
	numFraction                // has a fraction or an exponent
	numOverflow                // an integer outside int64
)

// number consumes the JSON number token at the cursor, checking its grammar
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), and returns its value
// when it is an int64.
func (s *scanner) number() (int64, numKind) {
	b := s.buf
	i := s.pos
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	var u uint64
	for ; i < len(b) && b[i]-'0' < 10; i++ {
		u = u*10 + uint64(b[i]-'0')
	}
	digits := i - start
	if digits == 0 {
		s.pos = i
		s.syntaxErr(" in number")
		return 0, numInt
	}
	if digits > 1 && b[start] == '0' {
		s.fail(start+1, true, "leading zero in number")
		return 0, numInt
	}
	kind := numInt
	if digits > 18 && !fitsInt64(b[start:i], neg) {
		kind = numOverflow
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for ; i < len(b) && b[i]-'0' < 10; i++ {
		}
		if i == j {
			s.pos = i
			s.syntaxErr(" in number, expected a digit after '.'")
			return 0, numInt
		}
		kind = numFraction
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for ; i < len(b) && b[i]-'0' < 10; i++ {
		}
		if i == j {
			s.pos = i
			s.syntaxErr(" in number, expected a digit in the exponent")
			return 0, numInt
		}
		kind = numFraction
	}
	s.pos = i
	if kind != numInt {
		return 0, kind
	}
	if neg {
		return -int64(u), numInt // u <= 1<<63, checked by fitsInt64
	}
	return int64(u), numInt
}

// fitsInt64 reports whether the decimal digits d (no sign, no leading
// zeros) fit int64, the negative range reaching one further.
func fitsInt64(d []byte, neg bool) bool {
	const maxDigits = "9223372036854775807"
	if len(d) != len(maxDigits) {
		return len(d) < len(maxDigits)
	}
	if neg {
		return string(d) <= "9223372036854775808"
	}
	return string(d) <= maxDigits
}

// parseDecimal parses the contents of a numeric string: an optional '-' and
// 1 to 19 decimal digits (leading zeros allowed, as Java's Long.parseLong
// does). ok is false for anything else or out of int64 range.
func parseDecimal(b []byte) (v int64, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c-'0' >= 10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// int64 reads an integer, given either as a JSON number or as a string
// holding one (old logs quote some numbers). null reads as 0. Anything else,
// including a fraction, is a shape error.
func (s *scanner) int64() int64 {
	c := s.peek()
	if c == '-' || c-'0' < 10 {
		at := s.pos
		v, kind := s.number()
		if kind != numInt {
			if kind == numFraction {
				s.shapeErrAt(at, "integer")
			} else {
				s.fail(at, false, "integer out of range for key "+strconv.Quote(string(s.key)))
			}
			return 0
		}
		return v
	}
	switch c {
	case '"':
		at := s.pos
		if v, ok := parseDecimal(s.rawString()); ok {
			return v
		}
		s.shapeErrAt(at, "integer")
		return 0
	case 'n':
		s.literal("null")
		return 0
	}
	s.shapeErr("integer")
	return 0
}

// int reads an int64 into an int (Go int is 64 bits on every platform the
// exporter targets; on 32-bit ones large values wrap).
func (s *scanner) int() int { return int(s.int64()) }

// float64 reads a JSON number, or a string holding one; null reads as 0.
func (s *scanner) float64() float64 {
	c := s.peek()
	at := s.pos
	var text []byte
	switch {
	case c == '-' || c-'0' < 10:
		s.number()
		text = s.buf[at:s.pos]
	case c == '"':
		text = s.rawString()
		if !isJSONNumber(text) {
			s.shapeErrAt(at, "number")
			return 0
		}
	case c == 'n':
		s.literal("null")
		return 0
	default:
		s.shapeErr("number")
		return 0
	}
	if s.err != nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil { // out of float64 range
		s.shapeErrAt(at, "number within float64 range")
		return 0
	}
	return f
}

// boolean reads true or false; null reads as false.
func (s *scanner) boolean() bool {
	switch s.peek() {
	case 't':
		s.literal("true")
		return true
	case 'f':
		s.literal("false")
		return false
	case 'n':
		s.literal("null")
		return false
	}
	s.shapeErr("boolean")
	return false
}

// flexInt reads a value that may be an integer, a string holding one, or
// any other JSON value (accumulable updates: lists of blocks in Spark 1.x
// and 2.x, "00:00:00.000" durations in some vendors' builds). numeric is
// false for everything but an int64; present is false for null.
func (s *scanner) flexInt() (v int64, numeric, present bool) {
	switch c := s.peek(); {
	case c == '-' || c-'0' < 10:
		v, kind := s.number()
		return v, kind == numInt, true
	case c == '"':
		v, ok := parseDecimal(s.rawString())
		return v, ok, true
	case c == 'n':
		s.literal("null")
		return 0, false, false
	}
	s.skipValue()
	return 0, false, true
}

// isJSONNumber reports whether b is exactly one JSON number token, so a
// quoted number cannot smuggle in "Inf" or hex floats.
func isJSONNumber(b []byte) bool {
	var sub scanner
	sub.reset(b)
	sub.number()
	return sub.err == nil && sub.pos == len(b)
}
