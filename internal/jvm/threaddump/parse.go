package threaddump

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxProblems bounds Dump.Problems; Dump.Skipped still counts them all.
const maxProblems = 10

// maxDumpBytes bounds what Read accepts: a dump of 10,000 threads with deep
// stacks is about 30 MB.
const maxDumpBytes = 256 << 20

// ErrNoThreads is returned (wrapped) when the input holds no thread header.
var ErrNoThreads = errors.New("no thread header found")

// Read parses a dump from r, reading at most 256 MiB.
func Read(r io.Reader) (*Dump, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxDumpBytes+1))
	if err != nil {
		return nil, fmt.Errorf("threaddump: read: %w", err)
	}
	if len(b) > maxDumpBytes {
		return nil, fmt.Errorf("threaddump: dump larger than %d bytes", maxDumpBytes)
	}
	return Parse(b)
}

// Parse parses one thread dump. Leading text (a jcmd "<pid>:" line, the
// attach result code) and unknown lines are skipped. The only error is
// ErrNoThreads.
func Parse(data []byte) (*Dump, error) { return ParseString(string(data)) }

// ParseString is Parse on a string. The returned strings share memory with s.
func ParseString(s string) (*Dump, error) {
	p := parser{d: &Dump{}}
	for lineNo := 1; len(s) > 0; lineNo++ {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		p.line(lineNo, strings.TrimRight(line, "\r"))
	}
	p.flush()
	if len(p.d.Threads) == 0 {
		return p.d, fmt.Errorf("threaddump: %w (%d lines skipped)", ErrNoThreads, p.d.Skipped)
	}
	return p.d, nil
}

type section uint8

const (
	inThreads  section = iota
	inSMR              // "Threads class SMR info:" … "}"
	inDeadlock         // "Found one Java-level deadlock:" … "Found N deadlock."
	inOwnable          // "Locked ownable synchronizers:" entries
	inVirtual          // frames of a "Mounted virtual thread"
)

type parser struct {
	d   *Dump
	cur *Thread
	sec section
}

func (p *parser) flush() {
	if p.cur != nil {
		p.d.Threads = append(p.d.Threads, *p.cur)
		p.cur = nil
	}
}

func (p *parser) skip(lineNo int, reason, text string) {
	p.d.Skipped++
	if len(p.d.Problems) < maxProblems {
		p.d.Problems = append(p.d.Problems, Problem{Line: lineNo, Reason: reason, Text: clip(text, 120)})
	}
}

func (p *parser) line(lineNo int, raw string) {
	t := strings.TrimLeft(raw, " \t")
	switch p.sec {
	case inSMR:
		if t == "}" || t == "" {
			p.sec = inThreads
		}
		if t != "" && t[0] != '"' {
			return
		}
		// A header right after an unterminated SMR block: parse it below.
	case inDeadlock:
		if strings.HasPrefix(t, "Found ") && strings.Contains(t, "deadlock") {
			p.d.Deadlocks = leadingInt(strings.TrimPrefix(t, "Found "), p.d.Deadlocks+1)
			p.sec = inThreads
		}
		return
	}
	if t == "" {
		return
	}
	switch {
	case t[0] == '"':
		th, ok := parseHeader(t)
		if !ok {
			p.skip(lineNo, "malformed thread header", t)
			return
		}
		p.flush()
		th.Line = lineNo
		p.cur = &th
		p.sec = inThreads
	case strings.HasPrefix(t, "at "):
		f, ok := parseFrame(t[3:])
		switch {
		case !ok:
			p.skip(lineNo, "malformed frame", t)
		case p.cur == nil:
			p.skip(lineNo, "frame outside a thread", t)
		case p.sec == inVirtual && p.cur.Carried != nil:
			p.cur.Carried.Frames = append(p.cur.Carried.Frames, f)
		default:
			p.cur.Frames = append(p.cur.Frames, f)
		}
	case strings.HasPrefix(t, "- "):
		p.lockLine(lineNo, t)
	case strings.HasPrefix(t, "java.lang.Thread.State: "):
		if p.cur == nil {
			p.skip(lineNo, "state line outside a thread", t)
			return
		}
		p.cur.State, p.cur.StateDetail = splitState(t[len("java.lang.Thread.State: "):])
	case t == "Locked ownable synchronizers:":
		if p.cur == nil {
			p.skip(lineNo, "synchronizers outside a thread", t)
			return
		}
		p.cur.OwnableSynchronizers = []Lock{}
		p.sec = inOwnable
	case strings.HasPrefix(t, "Carrying virtual thread #"):
		if p.cur != nil {
			p.cur.Carried = &VirtualThread{JavaID: int64(leadingInt(t[len("Carrying virtual thread #"):], -1))}
		}
	case strings.HasPrefix(t, "Mounted virtual thread #"):
		if p.cur != nil {
			if p.cur.Carried == nil {
				p.cur.Carried = &VirtualThread{JavaID: int64(leadingInt(t[len("Mounted virtual thread #"):], -1))}
			}
			p.sec = inVirtual
		}
	case strings.HasPrefix(t, "Full thread dump "):
		p.d.VM = strings.TrimSuffix(t[len("Full thread dump "):], ":")
	case t == "Threads class SMR info:":
		p.flush()
		p.sec = inSMR
	case strings.HasPrefix(t, "Found one Java-level deadlock") || strings.HasPrefix(t, "Found a total of"):
		p.flush()
		p.sec = inDeadlock
	case isTimestamp(t):
		p.d.Timestamp = t
	case strings.HasPrefix(t, "JNI global ref"), t == "No compile task",
		strings.HasPrefix(t, "Compiling:"), isPIDLine(t):
		// Known lines that carry nothing we use.
	default:
		p.skip(lineNo, "unrecognised line", t)
	}
}

func (p *parser) lockLine(lineNo int, t string) {
	if p.cur == nil {
		p.skip(lineNo, "lock line outside a thread", t)
		return
	}
	body := t[2:]
	if p.sec == inOwnable {
		if body == "None" {
			return
		}
		l := parseLock(Owned, body)
		p.cur.OwnableSynchronizers = append(p.cur.OwnableSynchronizers, l)
		return
	}
	kind, rest, ok := lockVerb(body)
	if !ok {
		p.skip(lineNo, "unknown lock line", t)
		return
	}
	frames := &p.cur.Frames
	if p.sec == inVirtual && p.cur.Carried != nil {
		frames = &p.cur.Carried.Frames
	}
	if len(*frames) == 0 {
		p.skip(lineNo, "lock line before any frame", t)
		return
	}
	last := &(*frames)[len(*frames)-1]
	last.Locks = append(last.Locks, parseLock(kind, rest))
}

var lockVerbs = []struct {
	prefix string
	kind   LockKind
}{
	{"locked ", Locked},
	{"waiting to lock ", WaitingToLock},
	{"waiting on ", WaitingOn},
	{"parking to wait for ", ParkingToWaitFor},
	{"waiting to re-lock in wait() ", WaitingToReLock},
	{"eliminated ", Eliminated},
}

func lockVerb(body string) (LockKind, string, bool) {
	for _, v := range lockVerbs {
		if strings.HasPrefix(body, v.prefix) {
			return v.kind, strings.TrimLeft(body[len(v.prefix):], " "), true
		}
	}
	return 0, "", false
}

// parseLock reads "<0x…> (a some.Class)"; both parts are optional.
func parseLock(kind LockKind, s string) Lock {
	l := Lock{Kind: kind}
	if strings.HasPrefix(s, "<") {
		if end := strings.IndexByte(s, '>'); end > 0 {
			if a, ok := parseHex(s[1:end]); ok {
				l.Address = a
			}
			s = strings.TrimLeft(s[end+1:], " ")
		}
	}
	if strings.HasPrefix(s, "(a ") {
		s = s[3:]
		if end := strings.LastIndexByte(s, ')'); end >= 0 {
			s = s[:end]
		}
		l.Class = s
	}
	return l
}

func splitState(s string) (state, detail string) {
	state, detail, _ = strings.Cut(s, " ")
	detail = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(detail), "("), ")")
	return state, detail
}

// isTimestamp matches "2026-11-30 02:10:19".
func isTimestamp(t string) bool {
	if len(t) != 19 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' || t[16] != ':' {
		return false
	}
	for i := range len(t) {
		switch i {
		case 4, 7, 10, 13, 16:
			continue
		}
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// isPIDLine matches the "<pid>:" line jcmd prints first.
func isPIDLine(t string) bool {
	if len(t) < 2 || t[len(t)-1] != ':' {
		return false
	}
	for i := range len(t) - 1 {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
