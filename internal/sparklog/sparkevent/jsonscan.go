package sparkevent

import "fmt"

// maxDepth bounds JSON nesting. Jackson, which writes and reads Spark's event
// logs, refuses documents nested deeper than 1000 levels since 2.15, so no
// real log goes deeper; the bound keeps hostile input from exhausting the
// stack in the recursive plan decoder.
const maxDepth = 1000

// DecodeError reports why a line could not be decoded. Column is the 1-based
// byte column where the problem was found; callers add the file and line.
type DecodeError struct {
	Column int
	Syntax bool   // the line is not valid JSON (as opposed to a valid line of the wrong shape)
	Msg    string // what went wrong, without the column
}

func (e *DecodeError) Error() string {
	if e.Syntax {
		return fmt.Sprintf("invalid JSON at column %d: %s", e.Column, e.Msg)
	}
	return fmt.Sprintf("unexpected value at column %d: %s", e.Column, e.Msg)
}

// scanner walks one JSON text without allocating. Errors are sticky: the
// first one is kept and the cursor jumps to the end of the input, so every
// loop of the decoder stops on its own without checking err at each step.
type scanner struct {
	buf    []byte
	pos    int
	depth  int
	key    []byte // the current object key: aliases buf or keyBuf
	keyBuf []byte // unescaped keys
	strBuf []byte // unescaped string values
	err    *DecodeError
	event  string // event type, named in shape errors

	// containers marks, per nesting level, whether it is an object (1) or
	// an array (0); only skipValue needs it.
	containers [maxDepth/64 + 1]uint64
}

func (s *scanner) reset(line []byte) {
	s.buf = line
	s.pos = 0
	s.depth = 0
	s.key = nil
	s.err = nil
	s.event = ""
}

// fail records the first error and moves the cursor to the end of input.
func (s *scanner) fail(pos int, syntax bool, msg string) {
	if s.err == nil {
		s.err = &DecodeError{Column: pos + 1, Syntax: syntax, Msg: msg}
	}
	s.pos = len(s.buf)
}

// syntaxErr reports the byte at the cursor as unexpected.
func (s *scanner) syntaxErr(context string) {
	if s.pos >= len(s.buf) {
		if s.err == nil {
			s.fail(s.pos, true, "unexpected end of input"+context)
		}
		return
	}
	s.fail(s.pos, true, "unexpected "+describeByte(s.buf[s.pos])+context)
}

// shapeErr reports a valid JSON value of the wrong type for the current key.
func (s *scanner) shapeErr(want string) {
	if s.err != nil {
		return
	}
	if s.pos >= len(s.buf) || !startsValue(s.buf[s.pos]) {
		s.syntaxErr("")
		return
	}
	msg := fmt.Sprintf("key %q: expected %s, found %s", s.key, want, kindOf(s.buf[s.pos]))
	if s.event != "" {
		msg = s.event + ": " + msg
	}
	s.fail(s.pos, false, msg)
}

// shapeErrAt reports a shape error for the value that started at pos.
func (s *scanner) shapeErrAt(pos int, want string) {
	if s.err == nil {
		s.pos = pos
		s.shapeErr(want)
	}
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("'%c'", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// startsValue reports whether c can start a JSON value.
func startsValue(c byte) bool {
	switch c {
	case '"', '{', '[', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// kindOf names the JSON type that starts with c.
func kindOf(c byte) string {
	switch {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	}
	return describeByte(c)
}

// ws skips JSON whitespace.
func (s *scanner) ws() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, 0 at the end of input.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.buf) {
		return s.buf[s.pos]
	}
	return 0
}

// null consumes a null literal if one comes next and reports whether it did.
// Spark omits absent options rather than writing null, so every known key
// treats null as absent.
func (s *scanner) null() bool {
	if s.peek() != 'n' {
		return false
	}
	s.literal("null")
	return true
}

func (s *scanner) literal(lit string) {
	if len(s.buf)-s.pos >= len(lit) && string(s.buf[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return
	}
	// Point at the first byte that differs.
	for i := 0; i < len(lit); i++ {
		if s.pos >= len(s.buf) || s.buf[s.pos] != lit[i] {
			s.syntaxErr("")
			return
		}
		s.pos++
	}
}

func (s *scanner) push(object bool) bool {
	if s.depth >= maxDepth {
		s.fail(s.pos, true, fmt.Sprintf("nesting deeper than %d levels", maxDepth))
		return false
	}
	word, bit := s.depth/64, uint(s.depth%64)
	if object {
		s.containers[word] |= 1 << bit
	} else {
		s.containers[word] &^= 1 << bit
	}
	s.depth++
	return true
}

// inObject reports whether the innermost open container is an object.
func (s *scanner) inObject() bool {
	d := s.depth - 1
	return s.containers[d/64]&(1<<uint(d%64)) != 0
}

// objectStart enters the object at the cursor and reads its first key.
// It returns false for an empty object, for null (absent), and on error; any
// other value is a shape error. Iterate with objectNext.
func (s *scanner) objectStart() bool {
	return s.enterObject() && s.readKey()
}

// enterObject enters the object at the cursor and reports whether a key
// follows: false for an empty object, for null (absent), and on error.
func (s *scanner) enterObject() bool {
	switch s.peek() {
	case '{':
	case 'n':
		s.literal("null")
		return false
	default:
		s.shapeErr("object")
		return false
	}
	if !s.push(true) {
		return false
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		s.depth--
		return false
	}
	return true
}

// objectNext moves past the member just read to the next key; false at '}'.
func (s *scanner) objectNext() bool {
	return s.toNextKey() && s.readKey()
}

// toNextKey moves past the member just read and reports whether a key
// follows (the cursor is then on its quote); false at '}' and on error.
func (s *scanner) toNextKey() bool {
	// Fast path: Spark writes no whitespace.
	if p := s.pos; p+1 < len(s.buf) && s.buf[p] == ',' && s.buf[p+1] == '"' {
		s.pos = p + 1
		return true
	}
	switch s.peek() {
	case ',':
		s.pos++
		s.ws()
		return true
	case '}':
		s.pos++
		s.depth--
		return false
	}
	s.syntaxErr(", expected ',' or '}'")
	return false
}

// readKey reads `"key":` into s.key, leaving the cursor before the value.
func (s *scanner) readKey() bool {
	if s.pos >= len(s.buf) || s.buf[s.pos] != '"' {
		s.syntaxErr(", expected a string key")
		return false
	}
	start := s.pos + 1
	end := scanPlain(s.buf, start)
	if end < len(s.buf) && s.buf[end] == '"' {
		s.key = s.buf[start:end]
		s.pos = end + 1
	} else {
		s.keyBuf = s.unescape(s.keyBuf[:0], start, end)
		s.key = s.keyBuf
	}
	if s.pos < len(s.buf) && s.buf[s.pos] == ':' {
		s.pos++
		return s.err == nil
	}
	s.ws()
	if s.pos < len(s.buf) && s.buf[s.pos] == ':' {
		s.pos++
		return s.err == nil
	}
	s.syntaxErr(", expected ':'")
	return false
}

// arrayStart enters the array at the cursor, leaving it before the first
// element. It returns false for an empty array, for null, and on error.
func (s *scanner) arrayStart() bool {
	switch s.peek() {
	case '[':
	case 'n':
		s.literal("null")
		return false
	default:
		s.shapeErr("array")
		return false
	}
	if !s.push(false) {
		return false
	}
	s.pos++
	if s.peek() == ']' {
		s.pos++
		s.depth--
		return false
	}
	return true
}

// arrayNext moves past the element just read; false at ']'.
func (s *scanner) arrayNext() bool {
	switch s.peek() {
	case ',':
		s.pos++
		return true
	case ']':
		s.pos++
		s.depth--
		return false
	}
	s.syntaxErr(", expected ',' or ']'")
	return false
}

// end checks that only whitespace follows the top-level value.
func (s *scanner) end() {
	s.ws()
	if s.pos < len(s.buf) {
		s.syntaxErr(" after the end of the JSON object")
	}
}
