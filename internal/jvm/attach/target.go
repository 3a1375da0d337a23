package attach

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// target is what /proc tells about the process to attach to.
type target struct {
	pid     int    // host pid
	nspid   int    // pid inside the innermost pid namespace (names the files)
	uid     uint32 // effective uid
	gid     uint32 // effective gid
	sigQuit bool   // SIGQUIT is caught (SigCgt bit 2)
	procDir string // /proc/<pid>
}

// tmpDir is the JVM's /tmp seen from here: HotSpot always uses /tmp
// (not java.io.tmpdir), reached through /proc/<pid>/root for containers.
func (t *target) tmpDir() string {
	d := filepath.Join(t.procDir, "root", "tmp")
	if _, err := os.Stat(d); err == nil {
		return d
	}
	return "/tmp"
}

func (t *target) socketPath() string {
	return filepath.Join(t.tmpDir(), ".java_pid"+strconv.Itoa(t.nspid))
}

// inspect reads /proc/<pid>/status.
func inspect(procRoot string, pid int) (*target, error) {
	t := &target{pid: pid, procDir: filepath.Join(procRoot, strconv.Itoa(pid))}
	b, err := os.ReadFile(filepath.Join(t.procDir, "status"))
	if err != nil {
		return nil, procError(pid, "inspect", err)
	}
	var nstgid, nspid string
	for line := range strings.Lines(string(b)) {
		key, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		switch key {
		case "Uid", "Gid":
			if len(f) < 2 {
				return nil, &Error{PID: pid, Step: "inspect", Kind: ErrProtocol, Detail: "short " + key + " line in status"}
			}
			n, err := strconv.ParseUint(f[1], 10, 32)
			if err != nil {
				return nil, &Error{PID: pid, Step: "inspect", Kind: ErrProtocol, Detail: key + " line in status", Err: err}
			}
			if key == "Uid" {
				t.uid = uint32(n)
			} else {
				t.gid = uint32(n)
			}
		case "NStgid":
			nstgid = lastField(f)
		case "NSpid":
			nspid = lastField(f)
		case "SigCgt":
			mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64)
			t.sigQuit = err == nil && mask&(1<<(3-1)) != 0 // SIGQUIT is signal 3
		case "State":
			if strings.HasPrefix(strings.TrimSpace(val), "Z") || strings.HasPrefix(strings.TrimSpace(val), "X") {
				return nil, &Error{PID: pid, Step: "inspect", Kind: ErrProcessGone, Detail: "zombie"}
			}
		}
	}
	// The thread-group id is the pid the JVM knows itself by; for the main
	// thread NSpid holds the same. Kernels before 4.1 print neither.
	ns := nstgid
	if ns == "" {
		ns = nspid
	}
	t.nspid = pid
	if ns != "" {
		n, err := strconv.Atoi(ns)
		if err != nil {
			return nil, &Error{PID: pid, Step: "inspect", Kind: ErrProtocol, Detail: "NStgid in status", Err: err}
		}
		t.nspid = n
	}
	return t, nil
}

func lastField(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// checkJVM refuses to signal a process that is not a HotSpot JVM ready to
// start its attach listener: SIGQUIT kills a process that does not catch it,
// and makes a JVM without the listener print a dump into its own stdout.
func (t *target) checkJVM() error {
	hasJVM, err := mapsLibJVM(filepath.Join(t.procDir, "maps"))
	if err != nil {
		return procError(t.pid, "inspect", err)
	}
	if !hasJVM {
		return &Error{PID: t.pid, Step: "inspect", Kind: ErrNotJVM, Detail: "libjvm.so is not mapped"}
	}
	if flag := disabledByFlag(t.procDir); flag != "" {
		return &Error{PID: t.pid, Step: "inspect", Kind: ErrAttachDisabled, Detail: "started with " + flag}
	}
	if !t.sigQuit {
		return &Error{PID: t.pid, Step: "inspect", Kind: ErrAttachDisabled,
			Detail: "SIGQUIT is not caught (-Xrs?) and no attach socket exists"}
	}
	return nil
}

func mapsLibJVM(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if bytes.HasSuffix(sc.Bytes(), []byte("/libjvm.so")) {
			return true, nil
		}
	}
	return false, sc.Err()
}

// disabledByFlag looks for -XX:+DisableAttachMechanism on the command line
// and in the option variables the launcher reads. Flags in @argfiles or
// hsperf settings are not seen; the socket wait catches those.
func disabledByFlag(procDir string) string {
	const flag = "-XX:+DisableAttachMechanism"
	if b, err := os.ReadFile(filepath.Join(procDir, "cmdline")); err == nil {
		for arg := range bytes.SplitSeq(b, []byte{0}) {
			if string(arg) == flag {
				return flag
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(procDir, "environ")); err == nil {
		for kv := range bytes.SplitSeq(b, []byte{0}) {
			k, v, _ := bytes.Cut(kv, []byte("="))
			switch string(k) {
			case "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS":
				if bytes.Contains(v, []byte(flag)) {
					return flag + " in " + string(k)
				}
			}
		}
	}
	return ""
}

// alive reports whether the process still runs (zombies count as gone).
func alive(procDir string) bool {
	b, err := os.ReadFile(filepath.Join(procDir, "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] != 'Z' && b[i+2] != 'X'
}

// procError classifies an error from reading /proc/<pid>/….
func procError(pid int, step string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ESRCH):
		return &Error{PID: pid, Step: step, Kind: ErrProcessGone, Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{PID: pid, Step: step, Kind: ErrPermission, Err: err}
	}
	return &Error{PID: pid, Step: step, Kind: ErrProtocol, Detail: fmt.Sprintf("reading /proc/%d", pid), Err: err}
}
