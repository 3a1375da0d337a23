package stacks

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/sparkglance/sparkglance/internal/jvm/attach"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Target is one JVM to sample: through the attach protocol when PID is
// set, else through the Spark UI at UI.
type Target struct {
	Framework  string // Spark or Flink
	AppID      string
	ExecutorID string
	PID        int    // host pid, for attach
	StartTime  uint64 // with PID, tells a restarted process from the old one
	UI         string // Spark UI base URL ("http://driver:4040"), for REST
}

// Key names the target in the Sampler and in logs. Attach and REST
// targets of the same executor are kept apart.
func (t Target) Key() string {
	if t.PID > 0 {
		return t.Framework + "/" + t.AppID + "/" + t.ExecutorID + "/pid/" + strconv.Itoa(t.PID)
	}
	return t.Framework + "/" + t.AppID + "/" + t.ExecutorID + "/ui/" + t.UI
}

func (t Target) String() string {
	if t.PID > 0 {
		return fmt.Sprintf("%s %s executor %s (pid %d)", t.Framework, t.AppID, t.ExecutorID, t.PID)
	}
	return fmt.Sprintf("%s %s executor %s (via %s)", t.Framework, t.AppID, t.ExecutorID, t.UI)
}

// Lister finds the JVMs to sample.
type Lister interface {
	Targets(ctx context.Context) ([]Target, error)
}

// ProcessLister lists the JVMs the node's discovery tracks, except Flink
// JobManagers, which run no tasks. Spark drivers are kept: in local mode
// they run the tasks.
func ProcessLister(s *discovery.Scanner) Lister { return processLister{s} }

type processLister struct{ scanner *discovery.Scanner }

func (l processLister) Targets(context.Context) ([]Target, error) {
	var out []Target
	for _, j := range l.scanner.JVMs() {
		if j.Role == discovery.RoleJobManager {
			continue
		}
		out = append(out, Target{Framework: j.Framework, AppID: j.AppID, ExecutorID: j.ExecutorID,
			PID: j.PID, StartTime: j.StartTime})
	}
	return out, nil
}

// Dumper takes one thread dump of a target.
type Dumper interface {
	Dump(ctx context.Context, t Target) (*threaddump.Dump, error)
}

// AttachDumper takes dumps with the HotSpot attach protocol.
type AttachDumper struct{ Client *attach.Client }

// Dump implements Dumper for targets with a PID.
func (d AttachDumper) Dump(ctx context.Context, t Target) (*threaddump.Dump, error) {
	if t.PID <= 0 {
		return nil, &SampleError{Reason: string(sm.StacksErrorNoPID), Err: errors.New(t.String() + " has no pid to attach to")}
	}
	c := d.Client
	if c == nil {
		c = &attach.Client{}
	}
	text, err := c.ThreadDump(ctx, t.PID)
	if err != nil {
		return nil, &SampleError{Reason: attach.Reason(err), Err: err}
	}
	dump, err := threaddump.Parse(text)
	if err != nil {
		return nil, &SampleError{Reason: string(sm.StacksErrorParse), Err: fmt.Errorf("thread dump of pid %d: %w", t.PID, err)}
	}
	return dump, nil
}

// SampleError is a failed dump with the short reason exported in
// sparkglance_stacks_errors_total{reason}.
type SampleError struct {
	Reason string
	Err    error
}

func (e *SampleError) Error() string { return e.Err.Error() }
func (e *SampleError) Unwrap() error { return e.Err }

// ErrorReason returns the metric label of a sampling error.
func ErrorReason(err error) string {
	var se *SampleError
	switch {
	case errors.As(err, &se):
		return se.Reason
	case errors.Is(err, context.DeadlineExceeded):
		return string(sm.StacksErrorTimeout)
	}
	return string(sm.StacksErrorOther)
}

// RoutingDumper sends targets with a PID to Attach and the others to REST.
type RoutingDumper struct {
	Attach Dumper
	REST   Dumper
}

// Dump implements Dumper.
func (r RoutingDumper) Dump(ctx context.Context, t Target) (*threaddump.Dump, error) {
	if t.PID > 0 && r.Attach != nil {
		return r.Attach.Dump(ctx, t)
	}
	if t.UI != "" && r.REST != nil {
		return r.REST.Dump(ctx, t)
	}
	return nil, &SampleError{Reason: string(sm.StacksErrorNoSource), Err: errors.New("no way to dump " + t.String())}
}
