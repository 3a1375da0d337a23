package sparkevent

// skipValue validates and skips one JSON value of any type. It loops
// instead of recursing, so nesting costs no stack; containers opened here
// are tracked in the scanner's bit stack.
func (s *scanner) skipValue() {
	base := s.depth
	for {
		// A value is expected at the cursor.
		switch c := s.peek(); {
		case c == '"':
			s.skipString()
		case c == '-' || c-'0' < 10:
			s.number()
		case c == '{':
			if !s.push(true) {
				return
			}
			s.pos++
			if s.peek() == '}' {
				s.pos++
				s.depth--
				break
			}
			if !s.readKey() {
				return
			}
			continue
		case c == '[':
			if !s.push(false) {
				return
			}
			s.pos++
			if s.peek() == ']' {
				s.pos++
				s.depth--
				break
			}
			continue
		case c == 't':
			s.literal("true")
		case c == 'f':
			s.literal("false")
		case c == 'n':
			s.literal("null")
		default:
			s.syntaxErr(", expected a value")
			return
		}
		// A value ended: close containers until one has another member.
		for {
			if s.err != nil || s.depth == base {
				return
			}
			if s.inObject() {
				if s.objectNext() {
					break
				}
			} else if s.arrayNext() {
				break
			}
		}
	}
}
