package sparkevent

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestScanPlainMatchesByteLoop compares the eight-bytes-at-a-time scan
// with the obvious loop on random bytes rich in the bytes it looks for.
func TestScanPlainMatchesByteLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x21, 'a', 0x7f, 0x80, 0xff, 0x5b, 0x5d, 0x22 ^ 0x80}
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = byte(rng.IntN(256))
			}
		}
		from := 0
		if len(b) > 0 {
			from = rng.IntN(len(b) + 1)
		}
		want := from
		for want < len(b) && b[want] != '"' && b[want] != '\\' && b[want] >= 0x20 {
			want++
		}
		if got := scanPlain(b, from); got != want {
			t.Fatalf("scanPlain(%q, %d) = %d, want %d", b, from, got, want)
		}
	}
}

// TestSkipValueMatchesEncodingJSON checks the validating skip accepts
// exactly what encoding/json accepts.
func TestSkipValueMatchesEncodingJSON(t *testing.T) {
	values := []string{
		`0`, `-0`, `-0.0e-0`, `1E+9`, `123456789012345678901234567890`, `01`, `-`, `1.`, `.5`, `+1`, `1e`, `1e+`, `0x10`,
		`""`, `"a\"b"`, `"\u00e9\ud83d\ude00"`, `"\u12"`, `"\x"`, "\"a\tb\"", `"unterminated`, `"\/\b\f\n\r\t"`,
		`true`, `false`, `null`, `tru`, `nul`, `True`, `NaN`, `Infinity`,
		`[]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `[[[]]]`, `[[[]]`,
		`{}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":{"b":[{"c":null}]}}`, `{"a":}`, `{`,
		` [ 1 , { "a" : "b" } ] `, `[1]]`, `{}}`, ``, ` `,
	}
	for _, v := range values {
		var s scanner
		s.reset([]byte(v))
		s.skipValue()
		s.end()
		if ok := s.err == nil; ok != json.Valid([]byte(v)) {
			t.Errorf("skipValue(%q): ok=%v, err=%v; encoding/json says valid=%v", v, ok, s.err, !ok)
		}
	}
}

func TestNumberKinds(t *testing.T) {
	cases := []struct {
		in   string
		v    int64
		kind numKind
		ok   bool
	}{
		{"0", 0, numInt, true},
		{"-0", 0, numInt, true},
		{"42", 42, numInt, true},
		{"9223372036854775807", math.MaxInt64, numInt, true},
		{"-9223372036854775808", math.MinInt64, numInt, true},
		{"9223372036854775808", 0, numOverflow, true},
		{"-9223372036854775809", 0, numOverflow, true},
		{"99999999999999999999", 0, numOverflow, true},
		{"1.5", 0, numFraction, true},
		{"1e3", 0, numFraction, true},
		{"-2E-3", 0, numFraction, true},
		{"01", 0, numInt, false},
		{"-", 0, numInt, false},
		{"1.", 0, numInt, false},
		{"1e", 0, numInt, false},
	}
	for _, c := range cases {
		var s scanner
		s.reset([]byte(c.in))
		v, kind := s.number()
		s.end()
		if ok := s.err == nil; ok != c.ok || (ok && (v != c.v || kind != c.kind)) {
			t.Errorf("number(%q) = %d, %d, err %v; want %d, %d, ok=%v", c.in, v, kind, s.err, c.v, c.kind, c.ok)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	cases := []struct {
		in string
		v  int64
		ok bool
	}{
		{"0", 0, true}, {"-5", -5, true}, {"007", 7, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false}, {"99999999999999999999", 0, false},
		{"", 0, false}, {"-", 0, false}, {"+1", 0, false}, {"1.0", 0, false}, {" 1", 0, false}, {"00:00:00.010", 0, false},
	}
	for _, c := range cases {
		if v, ok := parseDecimal([]byte(c.in)); v != c.v || ok != c.ok {
			t.Errorf("parseDecimal(%q) = %d, %v; want %d, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}

// TestSkipValueDeepNestingIsAnError checks the depth bound on both the
// skipping and the decoding paths, without recursion.
func TestSkipValueDeepNestingIsAnError(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		var s scanner
		s.reset([]byte(strings.Repeat(open, 100000)))
		s.skipValue()
		if s.err == nil || !strings.Contains(s.err.Msg, "nesting deeper than 1000") {
			t.Errorf("%q×100000: err %v", open, s.err)
		}
	}
	var s scanner
	s.reset([]byte(strings.Repeat("[", 1000) + strings.Repeat("]", 1000)))
	s.skipValue()
	s.end()
	if s.err != nil {
		t.Errorf("1000 levels must be allowed: %v", s.err)
	}
}

// TestInternTable checks repeated bytes give the very same string, and
// long strings are left alone.
func TestInternTable(t *testing.T) {
	tab := newInternTable()
	a, b := tab.get([]byte("executor-1")), tab.get([]byte("executor-1"))
	if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("same bytes, two allocations")
	}
	// Distinct strings evict old ones, but recent ones stay shared.
	for i := 0; i < 100000; i++ {
		tab.get([]byte(strconv.Itoa(i)))
	}
	c := tab.get([]byte("99999"))
	if d := tab.get([]byte("99999")); unsafe.StringData(c) != unsafe.StringData(d) {
		t.Error("a recent string is not shared")
	}
	long := []byte(strings.Repeat("x", internMaxLen+1))
	if e, f := tab.get(long), tab.get(long); e != f || unsafe.StringData(e) == unsafe.StringData(f) {
		t.Error("strings longer than internMaxLen must not be interned")
	}
}
