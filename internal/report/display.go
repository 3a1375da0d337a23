package report

import "unicode/utf8"

// MaxDisplayString is the longest string a page shows: an event log can
// hold names of hundreds of megabytes (a 207 MB log made a 223 MB page no
// browser could render), and nobody reads past the first megabyte.
const MaxDisplayString = 1 << 20

// truncationMark ends a truncated string.
const truncationMark = "…[truncated]"

// TruncateLongStrings returns doc, a JSON text, with every string longer
// than limit bytes (as encoded) cut to at most limit bytes plus
// truncationMark, at a character boundary; doc itself when none is. It
// scans the text once and does not parse it: the result is JSON whenever
// doc is.
func TruncateLongStrings(doc []byte, limit int) []byte {
	if len(doc) <= limit {
		return doc
	}
	var out []byte // nil until a string is cut
	copied := 0    // doc[:copied] is in out
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		start := i + 1
		end := start // the closing quote
		cut := -1    // the last boundary within limit
		for end < len(doc) && doc[end] != '"' {
			if end-start <= limit {
				cut = end
			}
			switch c := doc[end]; {
			case c == '\\' && end+1 < len(doc) && doc[end+1] == 'u':
				end += 6
			case c == '\\':
				end += 2
			case c < utf8.RuneSelf:
				end++
			default:
				_, size := utf8.DecodeRune(doc[end:])
				end += size
			}
		}
		end = min(end, len(doc))
		if end-start > limit && cut >= start {
			if out == nil {
				out = make([]byte, 0, len(doc)/2)
			}
			out = append(out, doc[copied:cut]...)
			out = append(out, truncationMark...)
			copied = end // the closing quote comes next
		}
		i = end
	}
	if out == nil {
		return doc
	}
	return append(out, doc[copied:]...)
}
