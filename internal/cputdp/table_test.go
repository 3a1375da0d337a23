package cputdp

import (
	"strings"
	"testing"
)

func TestDefaultTDPTableParsesEveryUsableRow(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// 4,903 data rows: 4 TDPs like "27.29.5" and one 0.0 are unusable.
	if tab.Len() != 4898 || tab.Skipped() != 5 {
		t.Fatalf("rows = %d usable + %d skipped, want 4898 + 5", tab.Len(), tab.Skipped())
	}
}

func TestTDPMatchRealModelStrings(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cpuinfo string
		want    string // "" = no match
		watts   float64
		exact   bool
	}{
		{"Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "Intel Xeon Platinum 8375C", 300, true},
		{"Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz", "Intel Xeon Platinum 8259CL", 210, true},
		{"Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", "Intel Xeon E5-2670", 115, true},
		{"Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz", "Intel Xeon E5-2670 v2", 115, true},
		{"Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz", "Intel Xeon E5-2686 v4", 145, true},
		{"Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", "Intel Xeon Gold 6248R", 205, true},
		{"Intel(R) Core(TM) i7-8550U CPU @ 1.80GHz", "Intel Core i7-8550U", 15, true},
		{"Intel(R) Core(TM) i5-8400 CPU @ 2.80GHz", "Intel Core i5-8400", 65, true},
		{"AMD EPYC 7763 64-Core Processor", "AMD EPYC 7763", 280, true},
		{"AMD EPYC 7B12 64-Core Processor", "AMD EPYC 7B12", 240, true},
		{"AMD Ryzen 9 5950X 16-Core Processor", "AMD Ryzen 9 5950X", 105, true},
		{"AMD Phenom(tm) II X6 1075T Processor", "AMD Phenom II X6 1075T", 125, true},
		// Fuzzy: the host says more than the table row.
		{"11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", "Intel Core i7-1165G7", 28, false},
		{"AMD Ryzen 7 PRO 4750U with Radeon Graphics", "AMD Ryzen 7 PRO 4750U", 15, false},
		{"Intel(R) Core(TM) Ultra 7 155H", "Intel Core Ultra 7 155H", 28, true},
		// No row: a family without model number, unlisted parts, ARM names.
		{"AMD EPYC", "", 0, false},
		{"AMD EPYC 7B13 64-Core Processor", "", 0, false},
		{"Intel(R) Xeon(R) Platinum 8488C", "", 0, false},
		{"Neoverse-N1", "", 0, false},
		{"ARMv8 Processor rev 1 (v8l)", "", 0, false},
		{"AWS Graviton3", "", 0, false},
		{"", "", 0, false},
	}
	for _, c := range cases {
		m, ok := tab.Match(c.cpuinfo)
		if c.want == "" {
			if ok {
				t.Errorf("Match(%q) = %+v, want no match", c.cpuinfo, m)
			}
			continue
		}
		if !ok || m.Name != c.want || m.Watts != c.watts || m.Exact != c.exact {
			t.Errorf("Match(%q) = %+v, %v; want %s %v W exact=%v", c.cpuinfo, m, ok, c.want, c.watts, c.exact)
		}
	}
}

func TestTDPMatchAmbiguousRowsGiveNoAnswer(t *testing.T) {
	tab, err := Parse(strings.NewReader("Name,TDP\nFoo X100,10\nBar X100,20\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := tab.Match("Baz X100"); ok {
		t.Fatalf("neither row is a subset of the host, got %+v", m)
	}
	if m, ok := tab.Match("Foo Bar X100"); ok {
		t.Fatalf("two rows tie with 10 W and 20 W, got %+v", m)
	}
	if m, ok := tab.Match("Foo X100 Mobile"); !ok || m.Watts != 10 {
		t.Fatalf("Match = %+v %v, want Foo X100", m, ok)
	}
}

func TestParseTDPTableRejectsBadHeader(t *testing.T) {
	_, err := Parse(strings.NewReader("Model,Watts\nX,1\n"), "bad.csv")
	if err == nil || !strings.Contains(err.Error(), "bad.csv:1") {
		t.Fatalf("err = %v, want one naming bad.csv:1", err)
	}
}
