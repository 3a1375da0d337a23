package sparklog

import (
	"fmt"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
)

// Position locates a delivered event.
type Position struct {
	File   string `json:"file"`             // path of the file as opened ("x.zip!member" inside a zip)
	Line   int64  `json:"line"`             // 1-based physical line number in the decompressed stream
	Offset int64  `json:"offset,omitempty"` // decompressed byte offset of the line's first byte
}

// ProblemKind classifies damage so callers can count or filter it without
// parsing Reason.
type ProblemKind string

// The kinds of damage a reader reports. Reading always goes on after one.
const (
	ProblemMalformedJSON ProblemKind = "malformed-json" // a line is not a decodable event
	ProblemNotEventLog   ProblemKind = "not-event-log"  // the file's first lines are not Spark events; the rest of the file is skipped
	ProblemCorruptData   ProblemKind = "corrupt-data"   // a compressed block is damaged (Offset is the compressed offset)
	ProblemTruncatedData ProblemKind = "truncated-data" // a finished file ends inside a compressed block
	ProblemUnknownCodec  ProblemKind = "unknown-codec"  // neither the name nor the content tells the codec; the file is skipped
	ProblemCodecMismatch ProblemKind = "codec-mismatch" // the name and the magic bytes disagree; the content wins
	ProblemEmptyFile     ProblemKind = "empty-file"     // a finished file holds no line at all
	ProblemLineTooLong   ProblemKind = "line-too-long"  // a line exceeds Options.MaxLineBytes and is skipped
	ProblemTruncatedLine ProblemKind = "truncated-line" // a finished file's last line is cut short
	ProblemMissingFile   ProblemKind = "missing-file"   // a rolling log lacks an events file (index gap) or a file vanished
	ProblemLayout        ProblemKind = "layout"         // a log directory is not laid out as Spark writes it
	ProblemFileShrank    ProblemKind = "file-shrank"    // a followed file became shorter than what was already read
	ProblemIO            ProblemKind = "io-error"       // reading failed midway; the rest of the file is skipped
	ProblemUnreadable    ProblemKind = "unreadable"     // a directory entry cannot be listed or opened (permissions, a damaged zip); it is skipped
	ProblemNotRegular    ProblemKind = "not-regular"    // a named pipe, device or socket (or a link to one); never opened
	ProblemExternalLink  ProblemKind = "external-link"  // a symbolic link leading outside the directory read; not followed unless enabled
)

// Problem is damage found while discovering or reading a log. For line
// problems Offset is the decompressed offset of the line; for damage in
// compressed data (corrupt block, checksum, truncation) it is the offset in
// the file as stored, and Reason says so. Zero Line/Offset mean "unknown".
type Problem struct {
	File   string      `json:"file"`
	Line   int64       `json:"line,omitempty"`
	Offset int64       `json:"offset,omitempty"`
	Kind   ProblemKind `json:"kind"`
	Reason string      `json:"reason"`
}

// String renders the problem like a compiler message: file:line: reason.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(human.QuotedName(p.File))
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Offset > 0 {
		fmt.Fprintf(&b, " (offset %d)", p.Offset)
	}
	fmt.Fprintf(&b, ": %s: %s", p.Kind, p.Reason)
	return b.String()
}

// NotEventLog reports whether a file's problems say it is not an event log
// at all (a README, a JSON file of something else beside the logs) rather
// than a damaged log, and returns the problem that says so: one is
// ProblemNotEventLog and the others at most that or ProblemUnknownCodec
// (a name with an extension no codec has, e.g. ".md"). Callers ask it of
// files that yielded no event.
func NotEventLog(problems []Problem) (Problem, bool) {
	var not Problem
	found := false
	for _, p := range problems {
		switch p.Kind {
		case ProblemNotEventLog:
			if !found {
				not, found = p, true
			}
		case ProblemUnknownCodec:
		default:
			return Problem{}, false
		}
	}
	return not, found
}
