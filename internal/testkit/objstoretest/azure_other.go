//go:build !linux

package objstoretest

import "os/exec"

// dieWithTest has no portable equivalent of Linux's parent-death signal:
// elsewhere the emulator is stopped by the test's cleanup only.
func dieWithTest(*exec.Cmd) {}
