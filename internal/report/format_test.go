package report

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// formatCase is one value given to one formatting function on both sides.
type formatCase struct {
	Fn string  `json:"fn"`
	V  float64 `json:"v"`
	D  int     `json:"d"`
}

// goFormat is what the text output prints for a case.
func goFormat(c formatCase) string {
	switch c.Fn {
	case "dur":
		return human.Millis(c.V)
	case "bytes":
		return human.Bytes(c.V)
	case "pct":
		return human.Percent(c.V)
	case "signedPct":
		return human.SignedPercent(c.V)
	case "num":
		return human.Decimal(c.V, c.D)
	case "number":
		return human.Number(c.V)
	case "wattHours":
		return human.WattHours(c.V)
	case "grams":
		return human.Grams(c.V)
	}
	panic(c.Fn)
}

// formatValues are the edges of every rule (unit changes, rounding ties,
// the 9.95/59.5 cuts) and a spread of values over many magnitudes.
func formatValues() []float64 {
	vs := []float64{0, 0.0004, 0.0005, 0.25, 0.5, 0.9994, 0.9995, 0.9996, 1, 1.05, 1.15, 2.25, 9.949, 9.95, 9.96, 10, 59.49, 59.5, 60,
		99.95, 99.96, 100, 125, 999.5, 1000, 1023.4, 1023.5, 1024, 2047, 10235, 3599.4, 3599.5, 3600, 86369, 86370, 86400, 1e6, 1e9, 4.25e7,
		6.7108864e7, 2.56e-5, 1e-7, 0.037, 0.0995, 0.1, 0.0005, 0.00049999, -0.0005, 12345.675, 1 << 40, 1 << 53}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		vs = append(vs, math.Pow(10, r.Float64()*16-6)*r.Float64())
		vs = append(vs, float64(r.IntN(100000))/float64([]int{1, 10, 100, 1000}[r.IntN(4)]))
	}
	return vs
}

// The page (JavaScript) and the text output (Go) print every figure with
// the same rules, so the same log reads the same in both: the formatting
// section of glance.js run by node on the same values as internal/human.
func TestFormattingMatchesGo(t *testing.T) {
	node := testkit.RequireTool(t, "node")
	section := formattingSection(t)
	var cases []formatCase
	for _, v := range formatValues() {
		for _, fn := range []string{"dur", "bytes", "pct", "signedPct", "number", "wattHours", "grams"} {
			if v >= 0 || fn == "pct" || fn == "signedPct" || fn == "number" { // no negative durations, sizes or energy
				cases = append(cases, formatCase{Fn: fn, V: v})
			}
		}
		cases = append(cases, formatCase{Fn: "pct", V: -v / 1000}, formatCase{Fn: "signedPct", V: -v / 1000}, formatCase{Fn: "number", V: -v})
		for d := range 3 {
			cases = append(cases, formatCase{Fn: "num", V: v, D: d})
		}
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	script := `const f = new Function(` + jsString(section) + ` + "; return { dur, bytes, pct, signedPct, num, number, wattHours, grams };")();
let input = ""; process.stdin.on("data", d => input += d).on("end", () => {
  process.stdout.write(JSON.stringify(JSON.parse(input).map(c => c.fn === "num" ? f.num(c.v, c.d) : f[c.fn](c.v))));
});`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var js []string
	if err := json.Unmarshal(out, &js); err != nil {
		t.Fatalf("node output: %v: %.200s", err, out)
	}
	if len(js) != len(cases) {
		t.Fatalf("node formatted %d values, want %d", len(js), len(cases))
	}
	bad := 0
	for i, c := range cases {
		if g := goFormat(c); g != js[i] || strings.Contains(g, "e+") || strings.Contains(g, "e-") {
			if bad++; bad <= 20 {
				t.Errorf("%s(%v, %d): Go %q, page %q", c.Fn, c.V, c.D, g, js[i])
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d differences in all", bad)
	}
}

// formattingSection is glance.js's formatting functions, between its
// "---- formatting ----" and "---- end of formatting ----" markers.
func formattingSection(t *testing.T) string {
	t.Helper()
	_, rest, ok := strings.Cut(glanceJS, "// ---- formatting ----")
	section, _, ok2 := strings.Cut(rest, "// ---- end of formatting ----")
	if !ok || !ok2 {
		t.Fatal("glance.js has no formatting section between its markers")
	}
	return section
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
