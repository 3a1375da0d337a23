package threaddump

import (
	"strconv"
	"strings"
	"time"
)

// parseHeader parses a thread header line (leading blanks removed):
//
//	"name" #12 [26344] daemon prio=5 os_prio=0 cpu=3.1ms elapsed=3.8s tid=0x… nid=0x66e8 runnable  [0x…]
//
// Every field after the name is optional, but at least one of prio=,
// os_prio=, tid= or nid= must be present, so the quoted names of the
// deadlock report ("Thread-1":) are not taken for headers.
func parseHeader(t string) (Thread, bool) {
	end := strings.LastIndexByte(t, '"')
	if end < 1 {
		return Thread{}, false
	}
	th := Thread{Name: t[1:end], JavaID: -1, Priority: -1, OSPriority: -1}
	rest := t[end+1:]
	known := false
	var status []string
	for len(rest) > 0 {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		tok := rest
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch {
		case tok[0] == '#' && th.JavaID < 0 && status == nil:
			if n, err := strconv.ParseInt(tok[1:], 10, 64); err == nil {
				th.JavaID = n
				continue
			}
		case tok == "daemon" && status == nil:
			th.Daemon = true
			continue
		case strings.HasPrefix(tok, "prio="):
			th.Priority = leadingInt(tok[5:], -1)
			known = true
			continue
		case strings.HasPrefix(tok, "os_prio="):
			th.OSPriority = leadingInt(tok[8:], -1)
			known = true
			continue
		case strings.HasPrefix(tok, "cpu=") && strings.HasSuffix(tok, "ms"):
			if v, err := strconv.ParseFloat(tok[4:len(tok)-2], 64); err == nil {
				th.CPU, th.HasCPU = time.Duration(v*float64(time.Millisecond)), true
			}
			continue
		case strings.HasPrefix(tok, "elapsed=") && strings.HasSuffix(tok, "s"):
			if v, err := strconv.ParseFloat(tok[8:len(tok)-1], 64); err == nil {
				th.Elapsed = time.Duration(v * float64(time.Second))
			}
			continue
		case strings.HasPrefix(tok, "allocated="), strings.HasPrefix(tok, "defined_classes="):
			continue
		case strings.HasPrefix(tok, "tid="):
			th.TID, _ = parseHex(tok[4:])
			known = true
			continue
		case strings.HasPrefix(tok, "nid="):
			if n, ok := parseNumber(tok[4:]); ok {
				th.OSThreadID = int64(n)
			}
			known = true
			continue
		case tok[0] == '[' && tok[len(tok)-1] == ']':
			inner := tok[1 : len(tok)-1]
			if strings.HasPrefix(inner, "0x") {
				continue // the stack address that ends the line
			}
			if n, err := strconv.ParseInt(inner, 10, 64); err == nil && status == nil {
				th.OSThreadID = n // JDK 19+ prints "[tid]" after "#N"
				continue
			}
		}
		status = append(status, tok)
	}
	th.Status = strings.Join(status, " ")
	return th, known
}

// parseFrame parses what follows "at ": "pkg.Class.method(Source)", where
// Source is "File.java:12", "File.java", "Native Method", "Unknown Source",
// any of them after a "module@version/" prefix.
func parseFrame(s string) (Frame, bool) {
	open := strings.LastIndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return Frame{}, false
	}
	var f Frame
	qual, src := s[:open], s[open+1:len(s)-1]
	// StackTraceElement.toString puts the module before the class instead:
	// "java.base@17/java.lang.Object.wait(Native Method)".
	if prefix, rest, ok := splitModulePrefix(qual); ok {
		qual, f.Module = rest, prefix
	}
	dot := strings.LastIndexByte(qual, '.')
	if dot <= 0 || dot == len(qual)-1 {
		return Frame{}, false
	}
	f.Class, f.Method = qual[:dot], qual[dot+1:]
	if i := strings.LastIndexByte(src, '/'); i >= 0 {
		f.Module, src = src[:i], src[i+1:]
	}
	switch src {
	case "Native Method":
		f.Native = true
	case "Unknown Source", "":
	default:
		f.File = src
		if i := strings.LastIndexByte(src, ':'); i >= 0 {
			if n, err := strconv.Atoi(src[i+1:]); err == nil {
				f.File, f.Line = src[:i], n
			}
		}
	}
	return f, true
}

// splitModulePrefix splits "loader/module@v/pkg.Class.method" at the last
// '/' that does not start a hidden-class suffix ("Foo$$Lambda/0x1234.run").
func splitModulePrefix(q string) (module, rest string, ok bool) {
	end := len(q)
	for {
		i := strings.LastIndexByte(q[:end], '/')
		if i < 0 {
			return "", q, false
		}
		if !strings.HasPrefix(q[i+1:], "0x") {
			module = q[:i]
			if j := strings.LastIndexByte(module, '/'); j >= 0 {
				module = module[j+1:] // drop the class loader name
			}
			return module, q[i+1:], true
		}
		end = i
	}
}

// leadingInt parses the decimal digits at the start of s, or returns def.
func leadingInt(s string, def int) int {
	n, digits := 0, 0
	for ; digits < len(s) && s[digits] >= '0' && s[digits] <= '9' && digits < 18; digits++ {
		n = n*10 + int(s[digits]-'0')
	}
	if digits == 0 {
		return def
	}
	return n
}

func parseHex(s string) (uint64, bool) {
	if !strings.HasPrefix(s, "0x") {
		return 0, false
	}
	n, err := strconv.ParseUint(s[2:], 16, 64)
	return n, err == nil
}

// parseNumber accepts "0x1a" (JDK ≤ 18 nid) and "26344" (JDK 19+).
func parseNumber(s string) (uint64, bool) {
	if n, ok := parseHex(s); ok {
		return n, true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func itoa(n int) string { return strconv.Itoa(n) }
