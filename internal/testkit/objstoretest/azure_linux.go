package objstoretest

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill the emulator when the test binary
// dies without its cleanup (a -timeout panic, a kill), so that no server
// is left behind.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
