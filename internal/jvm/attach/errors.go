package attach

import (
	"errors"
	"fmt"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Error kinds. Test with errors.Is; Reason turns them into metric labels.
var (
	// ErrNotJVM: the process is not a HotSpot JVM (no libjvm.so mapped),
	// so it is never signalled: SIGQUIT would kill it.
	ErrNotJVM = errors.New("not a HotSpot JVM")
	// ErrAttachDisabled: the JVM runs with -XX:+DisableAttachMechanism or
	// -Xrs, or no attach socket appeared after SIGQUIT.
	ErrAttachDisabled = errors.New("attach mechanism disabled or not answering")
	// ErrProcessGone: the process exited before or during the command.
	ErrProcessGone = errors.New("process gone")
	// ErrPermission: /proc, the socket or the signal was refused.
	ErrPermission = errors.New("permission denied")
	// ErrTimeout: a step did not finish before its deadline.
	ErrTimeout = errors.New("timed out")
	// ErrCommand: the JVM answered with a non-zero result code.
	ErrCommand = errors.New("command failed")
	// ErrProtocol: the reply was not "<code>\n<text>".
	ErrProtocol = errors.New("protocol error")
)

// Error describes a failed attach: which process, at which step, why.
type Error struct {
	PID    int
	Step   string // "inspect", "trigger", "signal", "wait for socket", "connect", "request", "reply"
	Kind   error  // one of the Err* kinds above
	Detail string // human explanation, may be empty
	Err    error  // underlying error, may be nil
	// timedOut marks an ErrAttachDisabled that is also an ErrTimeout.
	timedOut bool
}

func (e *Error) Error() string {
	s := fmt.Sprintf("attach to pid %d: %s: %v", e.PID, e.Step, e.Kind)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is matches the error's kind (and ErrTimeout for a socket that never came).
func (e *Error) Is(target error) bool {
	return target == e.Kind || (e.timedOut && target == ErrTimeout)
}

func (e *Error) Unwrap() error { return e.Err }

// Reason returns a short, stable label for an attach error, for
// sparkglance_stacks_errors_total{reason}: not_jvm, attach_disabled,
// process_gone, permission, timeout, command_failed, protocol or other.
func Reason(err error) string {
	for _, r := range reasons {
		if errors.Is(err, r.kind) {
			return r.label
		}
	}
	return string(sm.StacksErrorOther)
}

var reasons = []struct {
	kind  error
	label string
}{
	{ErrNotJVM, string(sm.StacksErrorNotJVM)},
	{ErrAttachDisabled, string(sm.StacksErrorAttachDisabled)},
	{ErrProcessGone, string(sm.StacksErrorProcessGone)},
	{ErrPermission, string(sm.StacksErrorPermission)},
	{ErrTimeout, string(sm.StacksErrorTimeout)},
	{ErrCommand, string(sm.StacksErrorCommandFailed)},
	{ErrProtocol, string(sm.StacksErrorProtocol)},
}
