package stacks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// restThread is Spark's ThreadStackTrace JSON. stackTrace is a single
// newline-joined string in Spark 2.4 and {"elems": [...]} since 3.0.
type restThread struct {
	ThreadID      int64           `json:"threadId"`
	ThreadName    string          `json:"threadName"`
	ThreadState   string          `json:"threadState"`
	StackTrace    json.RawMessage `json:"stackTrace"`
	BlockedByLock string          `json:"blockedByLock"`
	LockName      string          `json:"lockName"` // Spark 4
}

// restDump turns the REST threads into the parser's model, so the same
// rules classify them: frames from the stack elements, the thread state,
// and the lock the thread waits for from blockedByLock (or lockName).
func restDump(threads []restThread) (*threaddump.Dump, error) {
	d := &threaddump.Dump{VM: "Spark REST thread dump"}
	for i, rt := range threads {
		if rt.ThreadName == "" || rt.ThreadState == "" {
			return nil, fmt.Errorf("thread %d of %d: threadName and threadState are required", i+1, len(threads))
		}
		elems, err := restStackElems(rt.StackTrace)
		if err != nil {
			return nil, fmt.Errorf("thread %q: stackTrace: %w", rt.ThreadName, err)
		}
		th := threaddump.Thread{Name: rt.ThreadName, JavaID: rt.ThreadID, State: rt.ThreadState,
			Priority: -1, OSPriority: -1, Line: i + 1}
		for _, el := range elems {
			if f, ok := parseStackElement(el); ok {
				th.Frames = append(th.Frames, f)
			}
		}
		if class := lockClass(rt.BlockedByLock, rt.LockName); class != "" && len(th.Frames) > 0 {
			kind := threaddump.ParkingToWaitFor
			switch {
			case rt.ThreadState == "BLOCKED":
				kind = threaddump.WaitingToLock
			case strings.HasPrefix(rt.BlockedByLock, "Monitor("):
				kind = threaddump.WaitingOn
			}
			th.Frames[0].Locks = append(th.Frames[0].Locks, threaddump.Lock{Kind: kind, Class: class})
		}
		d.Threads = append(d.Threads, th)
	}
	return d, nil
}

func restStackElems(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var joined string
	if err := json.Unmarshal(raw, &joined); err == nil {
		return strings.Split(joined, "\n"), nil
	}
	var st struct {
		Elems []string `json:"elems"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, errors.New("neither a string nor {\"elems\": [...]}")
	}
	return st.Elems, nil
}

// parseStackElement parses StackTraceElement.toString(), e.g.
// "java.base@17.0.15/java.lang.Thread.run(Thread.java:833)", with Spark's
// " => holding Monitor(...)" suffix (3.x) or lock lines after a newline
// (4.x) removed. Lines that are not frames report false.
func parseStackElement(el string) (threaddump.Frame, bool) {
	el, _, _ = strings.Cut(el, "\n")
	el, _, _ = strings.Cut(el, " => holding ")
	el = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(el), "at "))
	open := strings.IndexByte(el, '(')
	if open <= 0 || !strings.HasSuffix(el, ")") {
		return threaddump.Frame{}, false
	}
	fn, src := el[:open], el[open+1:len(el)-1]
	var f threaddump.Frame
	// A "module@version/" or "loader//" prefix; a lambda class's "/0x…"
	// suffix is not one.
	if slash := strings.IndexByte(fn, '/'); slash > 0 {
		prefix := fn[:slash]
		switch {
		case strings.Contains(prefix, "@"):
			f.Module, fn = prefix, fn[slash+1:]
		case strings.HasPrefix(fn[slash:], "//"):
			fn = fn[slash+2:]
		}
	}
	dot := strings.LastIndexByte(fn, '.')
	if dot <= 0 || dot == len(fn)-1 {
		return threaddump.Frame{}, false
	}
	f.Class, f.Method = fn[:dot], fn[dot+1:]
	switch {
	case src == "Native Method":
		f.Native = true
	case src == "Unknown Source":
	default:
		file, line, ok := strings.Cut(src, ":")
		f.File = file
		if ok {
			f.Line, _ = strconv.Atoi(line)
		}
	}
	return f, true
}

// lockClass extracts the class from "Lock(java.util...NonfairSync@123})",
// "Monitor(java.lang.Object@42})" or Spark 4's lockName "cls@hex".
func lockClass(blockedBy, lockName string) string {
	s := blockedBy
	if s == "" {
		s = lockName
	}
	for _, p := range []string{"Lock(", "Monitor("} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = strings.TrimRight(rest, ")}")
		}
	}
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		s = s[:at]
	}
	return strings.TrimSpace(s)
}
