package attach

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// asTarget runs fn with the target's effective uid/gid when we are root and
// they differ: JDK 8-era listeners accept only a peer with the JVM's own
// uid and gid (SO_PEERCRED is taken at connect), and a trigger file must be
// owned by the JVM's user. Only the calling OS thread changes identity (raw
// setres[ug]id, not Go's process-wide Setuid); the goroutine never unlocks
// its thread, so the runtime discards that thread when fn returns.
func asTarget(uid, gid uint32, fn func() error) error {
	if os.Geteuid() != 0 || (uid == 0 && gid == 0) {
		return fn()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		const keep = ^uintptr(0) // -1: leave real and saved ids unchanged
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, keep, uintptr(gid), keep); e != 0 {
			errc <- fmt.Errorf("setresgid(%d): %w", gid, e)
			return
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, keep, uintptr(uid), keep); e != 0 {
			errc <- fmt.Errorf("setresuid(%d): %w", uid, e)
			return
		}
		errc <- fn()
	}()
	return <-errc
}
