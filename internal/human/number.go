// Package human formats what a person reads: durations, bytes, counts,
// shares and measured values in the units and grouping of the HTML
// report, never in scientific notation, and text from event logs made
// harmless on a terminal.
//
// The report page formats in JavaScript with the same rules
// (internal/report/assets/glance.js, section "formatting"): every rounding
// here is math.Round (half away from zero, as Math.round on the positive
// values both format) of the same IEEE products, so both print the same
// digits; a test runs both on the same values.
package human

import (
	"math"
	"strconv"
	"strings"
)

// fixed renders |v| with d decimals after rounding half away from zero,
// the integer part grouped in thousands ("12,345.6").
func fixed(v float64, d int) string {
	n := math.Round(math.Abs(v) * math.Pow10(d))
	digits := strconv.FormatFloat(n, 'f', 0, 64)
	for len(digits) <= d {
		digits = "0" + digits
	}
	whole, frac := digits[:len(digits)-d], digits[len(digits)-d:]
	var b strings.Builder
	if v < 0 && n != 0 {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if d > 0 {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// trimZeros drops the trailing zeros of a decimal fraction, and its point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Decimal renders v with at most d decimals, grouped: 12,345.67, 0.5, 3.
// Non-finite values show as "–".
func Decimal(v float64, d int) string {
	if !finite(v) {
		return "–"
	}
	return trimZeros(fixed(v, d))
}

// Count renders a whole number grouped in thousands: 12,345.
func Count[T ~int | ~int64 | ~int32 | ~float64](n T) string { return Decimal(float64(n), 0) }

// Number renders a measured value without a unit: from 100 on as a whole
// number grouped in thousands (42,500,000), below to three significant
// digits (42.5, 0.85, 0.000256), never with an exponent.
func Number(v float64) string {
	if !finite(v) {
		return "–"
	}
	a := math.Abs(v)
	if a >= 100 || a == 0 {
		return Decimal(v, 0)
	}
	d := 1
	for x := a; x < 10 && d < 20; x *= 10 {
		d++
	}
	return trimZeros(fixed(v, d))
}

// Seconds renders a duration in the largest fitting units, to about three
// significant digits: 850ms, 4.2s, 37s, 12m05s, 1h29m, 3d04h. Negative and
// non-finite values show as 0s.
func Seconds(s float64) string {
	if !(s > 0) || math.IsInf(s, 0) { // also NaN
		return "0s"
	}
	if ms := math.Round(s * 1000); ms < 1000 {
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	}
	switch {
	case s < 9.95:
		return fixed(s, 1) + "s"
	case s < 59.5:
		return fixed(s, 0) + "s"
	}
	total := math.Round(s) // whole seconds
	if total < 3600 {
		return strconv.Itoa(int(total/60)) + "m" + pad2(math.Mod(total, 60)) + "s"
	}
	m := math.Floor((total + 30) / 60) // whole minutes
	if m < 24*60 {
		return strconv.Itoa(int(m/60)) + "h" + pad2(math.Mod(m, 60)) + "m"
	}
	h := math.Floor(m / 60)
	return Decimal(math.Floor(h/24), 0) + "d" + pad2(math.Mod(h, 24)) + "h"
}

// Millis is Seconds of a duration in milliseconds.
func Millis[T ~int64 | ~float64](ms T) string { return Seconds(float64(ms) / 1e3) }

func pad2(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// Bytes renders a byte count in IEC units: 512 B, 3.5 KiB, 554 MiB.
func Bytes(b float64) string {
	if !(b > 0) || math.IsInf(b, 0) {
		return "0 B"
	}
	if b < 1023.5 {
		return fixed(b, 0) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := -1
	for b >= 1023.5 && u < len(units)-1 {
		b /= 1024
		u++
	}
	if b < 9.95 {
		return fixed(b, 1) + " " + units[u]
	}
	return fixed(b, 0) + " " + units[u]
}

// Percent renders a share (0.037) as a percentage: one decimal below 10 %
// (3.7%), none above (42%) or for what rounds to nothing (0%).
func Percent(f float64) string {
	if !finite(f) {
		return "–"
	}
	p := 100 * f
	if a := math.Abs(p); a >= 0.05 && a < 9.95 {
		return fixed(p, 1) + "%"
	}
	return fixed(p, 0) + "%" // below 0.05 %: 0%, not 0.0%
}

// SignedPercent is Percent with a "+" on what is not negative: +3.7%, -12%.
func SignedPercent(f float64) string {
	s := Percent(f)
	if finite(f) && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// WattHours renders energy in Wh, kWh or MWh.
func WattHours(wh float64) string { return thousands(wh, "Wh", "kWh", "MWh") }

// Grams renders a mass of CO2e in g, kg or t.
func Grams(g float64) string { return thousands(g, "g", "kg", "t") }

func thousands(v float64, unit, kilo, mega string) string {
	switch {
	case v >= 1e6:
		return Number(v/1e6) + " " + mega
	case v >= 1e3:
		return Number(v/1e3) + " " + kilo
	}
	return Number(v) + " " + unit
}

// Plural is "1 executor", "2 executors", "1,024 stage attempts": n and
// the noun in its form for n (noun+"s" unless plural is given).
func Plural[T ~int | ~int64](n T, noun string, plural ...string) string {
	word := noun
	if n != 1 {
		if len(plural) > 0 {
			word = plural[0]
		} else {
			word = noun + "s"
		}
	}
	return Count(n) + " " + word
}
