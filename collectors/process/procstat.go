package process

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// cpuStat is what the sampler needs from /proc/<pid>/stat.
type cpuStat struct {
	starttime uint64 // ticks after boot; with the pid, the process's identity
	ticks     uint64 // utime + stime + cutime + cstime
}

// Fields after "(comm) ", counted from 0 = state (proc(5) field 3).
const (
	fieldUTime     = 11
	fieldCSTime    = 14
	fieldStarttime = 19
)

// readCPUStat reads one process's CPU ticks and start time. It is the hot
// path of every sampling pass, so unlike procfs's ProcStat (which scans
// all 52 fields with fmt) it reads into buf and parses only six fields.
func readCPUStat(path string, buf []byte) (cpuStat, error) {
	f, err := os.Open(path)
	if err != nil {
		return cpuStat{}, err
	}
	n, err := io.ReadFull(f, buf)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return cpuStat{}, fmt.Errorf("%s: %w", path, err)
	}
	return parseCPUStat(path, buf[:n])
}

func parseCPUStat(path string, data []byte) (cpuStat, error) {
	// comm may hold spaces and parentheses: the fields start after the last ')'.
	r := bytes.LastIndexByte(data, ')')
	if r < 0 || r+2 > len(data) {
		return cpuStat{}, fmt.Errorf("%s: no \"(comm) \" in %q", path, truncate(data))
	}
	var s cpuStat
	rest := data[r+2:]
	for field := 0; field <= fieldStarttime; field++ {
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		if field >= fieldUTime && field <= fieldCSTime || field == fieldStarttime {
			v, ok := parseInt(bytes.TrimSpace(word))
			if !ok {
				return cpuStat{}, fmt.Errorf("%s: field %d: %q is not an integer", path, field+3, word)
			}
			if field == fieldStarttime {
				s.starttime = uint64(max(0, v))
			} else {
				s.ticks += uint64(max(0, v)) // cutime/cstime are signed in the kernel
			}
		}
		if end == len(rest) && field < fieldStarttime {
			return cpuStat{}, fmt.Errorf("%s: %d fields, want at least %d", path, field+3, fieldStarttime+3)
		}
		rest = rest[min(end+1, len(rest)):]
	}
	return s, nil
}

// parseInt parses a decimal int64 without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func truncate(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
