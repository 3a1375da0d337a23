// Package cputdp is the table of CPU models and their thermal design power
// (CodeCarbon's cpu_power.csv, MIT, embedded) and the matching of a CPU
// model name to it: the node agent looks up its own host's CPU, and the
// event-log energy model the CPU named by --energy.cpu-model, so both price
// a busy core the same way.
package cputdp

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// cpuPowerCSV is CodeCarbon's CPU TDP table (MIT; notice in cpu_power.LICENSE).
//
//go:embed cpu_power.csv
var cpuPowerCSV []byte

// Row is a table row chosen for a /proc/cpuinfo model name.
type Row struct {
	Name  string  // the table's spelling, e.g. "Intel Xeon Platinum 8375C"
	Watts float64 // TDP of one package
	Exact bool    // same token set; false when a subset of the host's tokens matched
}

type tdpEntry struct {
	name   string
	watts  float64
	tokens []string // sorted, distinct
}

// Table matches CPU model names against the embedded CodeCarbon table.
type Table struct {
	entries []tdpEntry
	byKey   map[string][]int // sorted tokens joined by " " -> entries
	byModel map[string][]int // model token -> entries holding it
	skipped int              // rows whose TDP is not a positive number
}

var (
	defaultTable     *Table
	defaultTableErr  error
	defaultTableOnce sync.Once
)

// Default returns the embedded table, parsed once.
func Default() (*Table, error) {
	defaultTableOnce.Do(func() {
		defaultTable, defaultTableErr = Parse(bytes.NewReader(cpuPowerCSV), "cpu_power.csv")
	})
	return defaultTable, defaultTableErr
}

// Parse reads a "Name,TDP" CSV. Rows whose TDP is not a positive
// number (the table has "27.29.5" and 0.0) are skipped, not fatal: one bad
// row must not cost the whole lookup.
func Parse(r io.Reader, source string) (*Table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", source, err)
	}
	if header[0] != "Name" || header[1] != "TDP" {
		return nil, fmt.Errorf("%s:1: header is %q, want Name,TDP", source, header)
	}
	t := &Table{byKey: map[string][]int{}, byModel: map[string][]int{}}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		watts, err := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err != nil || watts <= 0 {
			t.skipped++
			continue
		}
		toks := modelTokens(rec[0])
		if len(toks) == 0 {
			t.skipped++
			continue
		}
		i := len(t.entries)
		t.entries = append(t.entries, tdpEntry{name: rec[0], watts: watts, tokens: toks})
		key := strings.Join(toks, " ")
		t.byKey[key] = append(t.byKey[key], i)
		for _, tok := range toks {
			if isModelToken(tok) {
				t.byModel[tok] = append(t.byModel[tok], i)
			}
		}
	}
	return t, nil
}

// Len is the number of usable rows.
func (t *Table) Len() int { return len(t.entries) }

// Skipped is the number of rows left out for an unusable TDP.
func (t *Table) Skipped() int { return t.skipped }

// Match finds the row for a cpuinfo model name. Both sides are reduced to
// token sets (see modelTokens). The same set wins; otherwise the largest
// table row whose tokens all occur in the host name and which carries a
// model number (so "Intel Xeon" alone never matches). Rows that tie with
// different TDPs make the answer ambiguous: no match, the caller falls back.
func (t *Table) Match(model string) (Row, bool) {
	host := modelTokens(model)
	if len(host) == 0 {
		return Row{}, false
	}
	if ids := t.byKey[strings.Join(host, " ")]; len(ids) > 0 {
		if m, ok := t.unanimous(ids); ok {
			m.Exact = true
			return m, true
		}
		return Row{}, false
	}
	var best []int
	bestLen := 0
	seen := map[int]bool{}
	for _, tok := range host {
		for _, i := range t.byModel[tok] {
			if seen[i] {
				continue
			}
			seen[i] = true
			e := t.entries[i]
			if !isSubset(e.tokens, host) {
				continue
			}
			switch {
			case len(e.tokens) > bestLen:
				best, bestLen = []int{i}, len(e.tokens)
			case len(e.tokens) == bestLen:
				best = append(best, i)
			}
		}
	}
	if len(best) == 0 {
		return Row{}, false
	}
	return t.unanimous(best)
}

// unanimous returns the first row when every row agrees on the TDP.
func (t *Table) unanimous(ids []int) (Row, bool) {
	first := t.entries[ids[0]]
	for _, i := range ids[1:] {
		if t.entries[i].watts != first.watts {
			return Row{}, false
		}
	}
	return Row{Name: first.name, Watts: first.watts}, true
}

var (
	clockRe     = regexp.MustCompile(`@?\s*\d+(\.\d+)?\s*[gm]hz`)
	loneZeroRe  = regexp.MustCompile(`\s0\s*@`) // Intel's "E5-2670 0 @ 2.60GHz"
	coreCountRe = regexp.MustCompile(`^\d+-core$`)
	// Words that name no model: marketing marks and the words cpuinfo adds.
	noiseTokens = map[string]bool{"cpu": true, "processor": true, "@": true}
)

// modelTokens normalises a model name to its sorted, distinct tokens:
// lower case, without (R)/(TM), clock speed, "CPU", "Processor",
// "NN-Core" and Intel's lone "0" before the clock ("E5-2670 0 @ 2.60GHz").
func modelTokens(s string) []string {
	s = strings.ToLower(s)
	for _, mark := range []string{"(r)", "(tm)", "®", "™"} {
		s = strings.ReplaceAll(s, mark, " ")
	}
	s = loneZeroRe.ReplaceAllString(s, " @")
	s = clockRe.ReplaceAllString(s, " ")
	fields := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '(' || r == ')'
	})
	toks := fields[:0]
	for _, f := range fields {
		if noiseTokens[f] || coreCountRe.MatchString(f) {
			continue
		}
		toks = append(toks, f)
	}
	slices.Sort(toks)
	return slices.Compact(toks)
}

// isModelToken is true for tokens that name a model number ("8375c",
// "i7-8550u", "e5-2670"), not a family word or a one-digit tier ("9").
func isModelToken(tok string) bool {
	return len(tok) >= 3 && strings.ContainsFunc(tok, unicode.IsDigit)
}

// isSubset reports whether every token of small occurs in big (both sorted).
func isSubset(small, big []string) bool {
	for _, s := range small {
		if _, ok := slices.BinarySearch(big, s); !ok {
			return false
		}
	}
	return true
}
