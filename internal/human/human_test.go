package human

import (
	"strings"
	"testing"
)

func TestNumbersHaveNoExponent(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Number(4.25e7), "42,500,000"},
		{Number(6.7108864e7), "67,108,864"},
		{Number(0.85), "0.85"},
		{Number(42.54), "42.5"},
		{Number(2.56e-5), "0.0000256"},
		{Number(-1234.5), "-1,235"},
		{WattHours(2.56e-5), "0.0000256 Wh"},
		{WattHours(1234), "1.23 kWh"},
		{Grams(2.5e6), "2.5 t"},
		{Count(1234567), "1,234,567"},
		{Decimal(0.125, 2), "0.13"},
		{Decimal(3, 2), "3"},
		{Percent(0.037), "3.7%"},
		{Percent(0.42), "42%"},
		{SignedPercent(0.04), "+4.0%"},
		{SignedPercent(-0.12), "-12%"},
		{Seconds(417.4), "6m57s"},
		{Seconds(4.25), "4.3s"},
		{Seconds(0.9996), "1.0s"},
		{Bytes(1023.6), "1.0 KiB"},
		{Plural(1, "executor"), "1 executor"},
		{Plural(2, "executor"), "2 executors"},
		{Plural(1, "query", "queries"), "1 query"},
		{Plural(3, "query", "queries"), "3 queries"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, v := range []float64{1e-12, 1e-7, 1e21, 1e300} {
		for _, s := range []string{Number(v), WattHours(v), Grams(v), Bytes(v), Seconds(v)} {
			if strings.ContainsAny(s, "eE") && !strings.Contains(s, "EiB") {
				t.Errorf("%v: %q has an exponent", v, s)
			}
		}
	}
}

func TestSafeEscapesControls(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain name, ünïcode ✓", "plain name, ünïcode ✓"},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`},
		{"clear\x1b[2J\x1b[H", `clear\x1b[2J\x1b[H`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"bad\xe9byte", `bad\xe9byte`},
		{"two\nlines\ttab\r", `two\nlines\ttab\r`},
		{"del\x7f", `del\x7f`},
	} {
		if got := Safe(c.in); got != c.want {
			t.Errorf("Safe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := SafeLines("a\tb\nc\x1b"); got != "a\tb\nc\\x1b" {
		t.Errorf("SafeLines kept or lost the wrong characters: %q", got)
	}
}
