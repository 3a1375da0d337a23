package attach

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// startListener makes the JVM open its attach socket: it creates the
// trigger file .attach_pid<nspid>, sends SIGQUIT and polls for the socket.
// HotSpot looks for the trigger in its cwd, then in /tmp, and ignores one
// owned by another user (root is accepted by newer JDKs only).
func (c *Client) startListener(ctx context.Context, t *target, sock string) error {
	trigger, err := createTrigger(t)
	if err != nil {
		return err
	}
	defer os.Remove(trigger)

	if err := syscall.Kill(t.pid, syscall.SIGQUIT); err != nil {
		e := &Error{PID: t.pid, Step: "signal", Kind: ErrProtocol, Err: err}
		switch {
		case errors.Is(err, syscall.ESRCH):
			e.Kind = ErrProcessGone
		case errors.Is(err, syscall.EPERM):
			e.Kind = ErrPermission
		}
		return e
	}
	return c.waitForSocket(ctx, t, sock)
}

// createTrigger creates the trigger file with the JVM's identity and
// returns its path.
func createTrigger(t *target) (string, error) {
	name := ".attach_pid" + strconv.Itoa(t.nspid)
	candidates := []string{
		filepath.Join(t.procDir, "cwd", name),
		filepath.Join(t.tmpDir(), name),
	}
	var firstErr error
	for _, path := range candidates {
		err := asTarget(t.uid, t.gid, func() error {
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o660)
			if err != nil {
				return err
			}
			return f.Close()
		})
		if err == nil && ownedBy(path, t.uid) {
			return path, nil
		}
		if err == nil {
			// Some file systems remap owners; HotSpot would ignore this file.
			os.Remove(path)
			err = errors.New(path + " is not owned by uid " + strconv.Itoa(int(t.uid)))
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	e := &Error{PID: t.pid, Step: "trigger", Kind: ErrProtocol, Detail: "cannot create " + name + " in the JVM's cwd or /tmp", Err: firstErr}
	switch {
	case errors.Is(firstErr, os.ErrPermission):
		e.Kind = ErrPermission
	case !alive(t.procDir):
		e.Kind = ErrProcessGone
	}
	return "", e
}

func ownedBy(path string, uid uint32) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (st.Uid == uid || st.Uid == 0)
}

// waitForSocket polls with growing pauses (20 ms, 40 ms, … capped at 200 ms)
// until the socket exists, the process dies, ListenerWait passes or ctx ends.
func (c *Client) waitForSocket(ctx context.Context, t *target, sock string) error {
	wait := orDefault(c.ListenerWait, 5*time.Second)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	pause := 20 * time.Millisecond
	for {
		if isSocket(sock) {
			return nil
		}
		if !alive(t.procDir) {
			return &Error{PID: t.pid, Step: "wait for socket", Kind: ErrProcessGone}
		}
		select {
		case <-ctx.Done():
			return &Error{PID: t.pid, Step: "wait for socket", Kind: ErrTimeout, Err: ctx.Err(),
				Detail: "deadline reached before " + sock + " appeared"}
		case <-timer.C:
			return &Error{PID: t.pid, Step: "wait for socket", Kind: ErrAttachDisabled, timedOut: true,
				Detail: "no socket " + sock + " " + wait.String() + " after SIGQUIT: started with -XX:+DisableAttachMechanism, or not answering"}
		case <-time.After(pause):
		}
		pause = min(pause+20*time.Millisecond, 200*time.Millisecond)
	}
}
