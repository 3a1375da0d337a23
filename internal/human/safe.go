package human

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe makes a string from an event log (an application, stage, file or
// operator name) harmless on a terminal: control characters (C0, DEL, C1,
// and the bidirectional overrides that reorder what is shown), and bytes
// that are not UTF-8, are written as Go escapes (\x1b, \n, \u202e, \xe9).
// Anything else is left as it is, so an ordinary name reads unchanged.
func Safe(s string) string { return escape(s, false) }

// SafeLines is Safe for a whole text of lines: newlines and tabs stay.
func SafeLines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n, keepLines) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !needsEscape(r, n, keepLines):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune, size int, keepLines bool) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return true
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	}
	return isBidiControl(r) || (r > 0x7f && unicode.IsControl(r))
}

// isBidiControl: the embeddings, overrides and isolates that make a
// terminal show text in another order than it is.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// SafeWriter writes what it is given with SafeLines: every Write must be
// whole text (a message, a rendered report), as no rune is carried over
// from one Write to the next.
type SafeWriter struct{ W io.Writer }

func (s SafeWriter) Write(p []byte) (int, error) {
	safe := SafeLines(string(p))
	if _, err := io.WriteString(s.W, safe); err != nil {
		return 0, err
	}
	return len(p), nil
}
