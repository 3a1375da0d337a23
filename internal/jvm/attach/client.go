// Package attach speaks the HotSpot dynamic attach protocol (what jcmd and
// jstack use) from Go, so a node needs no JDK to take thread dumps.
//
// Steps (Linux): read /proc/<pid>/status for the effective uid/gid and the
// namespace pid; if /proc/<pid>/root/tmp/.java_pid<nspid> is not a live
// socket, check the process maps libjvm.so and catches SIGQUIT, create
// .attach_pid<nspid> in its cwd (or its /tmp), send SIGQUIT and wait for
// the socket; connect, send protocol version 1 "<cmd>\0<a0>\0<a1>\0<a2>\0",
// read "<code>\n<text>" to EOF. Every step is bounded by the context.
//
// When running as root against a JVM of another user, the trigger file and
// the connect are made with the JVM's uid/gid on a dedicated OS thread.
package attach

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Protocol limits of HotSpot's AttachOperation (version 1).
const (
	maxCommandLen = 16
	maxArgLen     = 1024
	maxArgs       = 3
)

// Client holds attach settings; the zero value uses the defaults.
type Client struct {
	// ListenerWait bounds the wait for the socket after SIGQUIT (default
	// 5s, as long as jattach waits). A JVM that does not answer within it is
	// reported as ErrAttachDisabled (and ErrTimeout).
	ListenerWait time.Duration
	// ReplyTimeout bounds the whole exchange when ctx has no deadline
	// (default 30s): the listener has no timeout of its own.
	ReplyTimeout time.Duration
	// MaxReply caps the reply size (default 64 MiB).
	MaxReply int
	// ProcRoot is the procfs mount (default /proc); tests may point elsewhere.
	ProcRoot string
}

// ThreadDump runs the "threaddump" command with the default Client.
func ThreadDump(ctx context.Context, pid int) ([]byte, error) {
	var c Client
	return c.ThreadDump(ctx, pid)
}

// ThreadDump returns the text of a HotSpot thread dump of pid (the same
// text jstack prints, without ownable synchronizers: "-l" walks the heap).
func (c *Client) ThreadDump(ctx context.Context, pid int) ([]byte, error) {
	return c.Execute(ctx, pid, "threaddump")
}

// Execute runs an attach command ("threaddump", "jcmd" with "Thread.print",
// "properties", …) with at most three arguments and returns its text
// output. A non-zero result code is an ErrCommand whose Detail holds the
// JVM's message.
func (c *Client) Execute(ctx context.Context, pid int, command string, args ...string) ([]byte, error) {
	if err := checkRequest(command, args); err != nil {
		return nil, &Error{PID: pid, Step: "request", Kind: ErrProtocol, Detail: err.Error()}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, orDefault(c.ReplyTimeout, 30*time.Second))
		defer cancel()
	}
	procRoot := c.ProcRoot
	if procRoot == "" {
		procRoot = "/proc"
	}
	t, err := inspect(procRoot, pid)
	if err != nil {
		return nil, err
	}
	conn, err := c.connect(ctx, t)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return c.exchange(ctx, t, conn, command, args)
}

// connect returns a connection to the listener, starting it if needed.
func (c *Client) connect(ctx context.Context, t *target) (net.Conn, error) {
	sock := t.socketPath()
	if isSocket(sock) {
		conn, err := dial(ctx, t, sock)
		if err == nil {
			return conn, nil
		}
		// A stale socket from an earlier JVM with the same pid refuses
		// connections; start a fresh listener as if there were none.
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, connectError(t, err)
		}
	}
	if err := t.checkJVM(); err != nil {
		return nil, err
	}
	if err := c.startListener(ctx, t, sock); err != nil {
		return nil, err
	}
	conn, err := dial(ctx, t, sock)
	if err != nil {
		return nil, connectError(t, err)
	}
	return conn, nil
}

func dial(ctx context.Context, t *target, sock string) (net.Conn, error) {
	var conn net.Conn
	err := asTarget(t.uid, t.gid, func() error {
		var err error
		var d net.Dialer
		conn, err = d.DialContext(ctx, "unix", sock)
		return err
	})
	return conn, err
}

func connectError(t *target, err error) error {
	e := &Error{PID: t.pid, Step: "connect", Kind: ErrProtocol, Err: err}
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		e.Kind = ErrPermission
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), isTimeout(err):
		e.Kind = ErrTimeout
	case goneSoon(context.Background(), t.procDir):
		e.Kind = ErrProcessGone
	}
	return e
}

// goneSoon reports whether the process is gone or goes within 200 ms: a
// reset connection is a dying JVM whose /proc entry lags a little behind.
func goneSoon(ctx context.Context, procDir string) bool {
	for range 10 {
		if !alive(procDir) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return !alive(procDir)
}

// exchange sends the request and reads the whole reply.
func (c *Client) exchange(ctx context.Context, t *target, conn net.Conn, command string, args []string) ([]byte, error) {
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()

	if _, err := conn.Write(encodeRequest(command, args)); err != nil {
		return nil, replyError(ctx, t, "request", err, nil)
	}
	limit := orDefault(c.MaxReply, 64<<20)
	reply, err := io.ReadAll(io.LimitReader(conn, int64(limit)+1))
	if err != nil {
		return nil, replyError(ctx, t, "reply", err, reply)
	}
	if len(reply) > limit {
		return nil, &Error{PID: t.pid, Step: "reply", Kind: ErrProtocol, Detail: "reply larger than " + strconv.Itoa(limit) + " bytes"}
	}
	codeLine, text, ok := bytes.Cut(reply, []byte("\n"))
	if !ok {
		return nil, replyError(ctx, t, "reply", io.ErrUnexpectedEOF, reply)
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(codeLine)))
	if err != nil {
		return nil, &Error{PID: t.pid, Step: "reply", Kind: ErrProtocol, Detail: "result code " + strconv.Quote(clip(codeLine))}
	}
	if code != 0 {
		return nil, &Error{PID: t.pid, Step: "reply", Kind: ErrCommand,
			Detail: "code " + strconv.Itoa(code) + ": " + strings.TrimSpace(clip(text))}
	}
	// The JVM closes the socket when done; if it is gone now, EOF may have
	// come from its death and the text may be cut.
	if !alive(t.procDir) {
		return nil, &Error{PID: t.pid, Step: "reply", Kind: ErrProcessGone, Detail: "exited while replying"}
	}
	return text, nil
}

func replyError(ctx context.Context, t *target, step string, err error, got []byte) error {
	e := &Error{PID: t.pid, Step: step, Kind: ErrProtocol, Err: err,
		Detail: "connection ended after " + strconv.Itoa(len(got)) + " bytes"}
	switch {
	case ctx.Err() == nil && !isTimeout(err) && goneSoon(ctx, t.procDir):
		e.Kind = ErrProcessGone
	case ctx.Err() != nil || isTimeout(err):
		e.Kind, e.Detail = ErrTimeout, "no complete reply before the deadline ("+strconv.Itoa(len(got))+" bytes read)"
	}
	return e
}

func checkRequest(command string, args []string) error {
	switch {
	case command == "" || len(command) > maxCommandLen:
		return errors.New("command name must be 1 to 16 bytes")
	case len(args) > maxArgs:
		return errors.New("at most 3 arguments")
	}
	for _, a := range args {
		if len(a) > maxArgLen || strings.IndexByte(a, 0) >= 0 {
			return errors.New("argument longer than 1024 bytes or holding NUL")
		}
	}
	if strings.IndexByte(command, 0) >= 0 {
		return errors.New("command holds NUL")
	}
	return nil
}

// encodeRequest builds "1\0<cmd>\0<a0>\0<a1>\0<a2>\0": version 1 always
// carries exactly three (possibly empty) arguments.
func encodeRequest(command string, args []string) []byte {
	b := append([]byte("1\x00"), command...)
	b = append(b, 0)
	for i := range maxArgs {
		if i < len(args) {
			b = append(b, args[i]...)
		}
		b = append(b, 0)
	}
	return b
}

func isSocket(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func clip(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
