// Package threaddump parses the text thread dumps HotSpot prints for
// jstack, `jcmd Thread.print`, SIGQUIT and the attach "threaddump"
// command, in the formats of JDK 8 to JDK 25.
//
// The parser never fails on a malformed line: it skips it, counts it in
// Dump.Skipped and notes the first few in Dump.Problems, so one odd line
// (a JVM log message interleaved on stdout, say) does not lose a sample.
package threaddump

import (
	"strings"
	"time"
)

// Dump is one parsed thread dump.
type Dump struct {
	// Timestamp is the optional "YYYY-MM-DD HH:MM:SS" line, verbatim.
	Timestamp string
	// VM is the text between "Full thread dump " and the final colon,
	// e.g. "OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing)".
	VM string
	// Threads in the order printed: Java threads first, then VM threads.
	Threads []Thread
	// Deadlocks is N from a trailing "Found N deadlock(s)." line.
	Deadlocks int
	// Skipped counts lines the parser did not understand and ignored.
	Skipped int
	// Problems describes the first skipped lines (at most maxProblems).
	Problems []Problem
}

// Problem is a line the parser skipped, and why.
type Problem struct {
	Line   int // 1-based line number in the input
	Reason string
	Text   string // the line, cut to 120 bytes
}

func (p Problem) String() string {
	return "line " + itoa(p.Line) + ": " + p.Reason + ": " + p.Text
}

// Thread is one thread block: a header line, then for Java threads a
// java.lang.Thread.State line, frames and lock lines.
type Thread struct {
	Name string
	// JavaID is the "#N" thread id; -1 when absent (VM threads, JDK 7).
	JavaID int64
	// OSThreadID is the Linux thread id: "[N]" (JDK 19+) or nid; 0 if absent.
	OSThreadID int64
	Daemon     bool
	// Priority and OSPriority are -1 when not printed.
	Priority, OSPriority int
	// CPU and Elapsed come from "cpu=…ms elapsed=…s" (JDK 11+); HasCPU
	// tells whether they were printed.
	CPU, Elapsed time.Duration
	HasCPU       bool
	TID          uint64 // tid=0x…: address of the JavaThread
	// Status is the header's free text, e.g. "waiting on condition".
	Status string
	// State is the java.lang.Thread.State word (RUNNABLE, BLOCKED, WAITING,
	// TIMED_WAITING, NEW, TERMINATED); empty for VM threads.
	State string
	// StateDetail is the parenthesised detail, e.g. "on object monitor".
	StateDetail string
	// Frames, innermost (leaf) first.
	Frames []Frame
	// OwnableSynchronizers lists the "Locked ownable synchronizers" block
	// (only with -l); nil when absent, empty when "- None".
	OwnableSynchronizers []Lock
	// Carried is set on a carrier thread running a virtual thread (JDK 21+).
	Carried *VirtualThread
	// Line is the 1-based line of the header.
	Line int
}

// VirtualThread is the virtual thread mounted on a carrier thread.
type VirtualThread struct {
	JavaID int64
	// Frames of the virtual thread, leaf first ("Mounted virtual thread"
	// block, JDK 25); empty when the JDK prints only the carrier's frames.
	Frames []Frame
}

// IsJava reports whether the thread is a Java thread (it has a state line).
func (t *Thread) IsJava() bool { return t.State != "" }

// Frame is one "at Class.method(Source)" line.
type Frame struct {
	Class  string // fully qualified, e.g. "java.lang.Thread"
	Method string
	// Module is the "name@version" prefix of JDK 9+, e.g. "java.base@17.0.15".
	Module string
	File   string // "Thread.java"; empty for Native Method / Unknown Source
	Line   int    // 0 when unknown
	Native bool
	Locks  []Lock // lock lines printed under this frame
}

// Func returns "Class.method", the form the classification rules match.
func (f Frame) Func() string { return f.Class + "." + f.Method }

// LockKind is the verb of a lock line.
type LockKind uint8

// Lock line verbs, as HotSpot prints them after "- ".
const (
	Locked           LockKind = iota + 1 // "locked"
	WaitingToLock                        // "waiting to lock" (BLOCKED on a monitor)
	WaitingOn                            // "waiting on" (Object.wait)
	ParkingToWaitFor                     // "parking to wait for" (LockSupport.park)
	WaitingToReLock                      // "waiting to re-lock in wait()"
	Eliminated                           // "eliminated" (lock removed by the JIT)
	Owned                                // an entry of "Locked ownable synchronizers"
)

var lockKindNames = [...]string{"", "locked", "waiting to lock", "waiting on",
	"parking to wait for", "waiting to re-lock in wait()", "eliminated", "owned"}

func (k LockKind) String() string {
	if int(k) < len(lockKindNames) {
		return lockKindNames[k]
	}
	return "lock(" + itoa(int(k)) + ")"
}

// Lock is one lock line.
type Lock struct {
	Kind    LockKind
	Address uint64 // 0 when not printed (e.g. "<no object reference available>")
	Class   string // the "(a X)" class; may be empty
}

// Waiting reports whether the lock line is something the thread waits for.
func (l Lock) Waiting() bool {
	return l.Kind == WaitingToLock || l.Kind == WaitingOn || l.Kind == ParkingToWaitFor || l.Kind == WaitingToReLock
}

// WaitingFor returns the first lock the thread waits for, if any.
func (t *Thread) WaitingFor() (Lock, bool) {
	for _, f := range t.Frames {
		for _, l := range f.Locks {
			if l.Waiting() {
				return l, true
			}
		}
	}
	return Lock{}, false
}

// Find returns the thread with the given name, or nil.
func (d *Dump) Find(name string) *Thread {
	for i := range d.Threads {
		if d.Threads[i].Name == name {
			return &d.Threads[i]
		}
	}
	return nil
}

func clip(s string, n int) string {
	s = strings.TrimRight(s, "\r\n")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
