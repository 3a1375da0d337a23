package profiles

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
)

// FoldedLine is one line of the folded format: frames root first and the
// number of samples of that stack.
type FoldedLine struct {
	Frames []string
	Count  int64
}

// Folded aggregates the stacks by function names (lines and thread states
// merged), root first, sorted by stack.
func (p *Profile) Folded() []FoldedLine {
	stacks, _, _, _ := p.Stacks()
	counts := map[string]int64{}
	for _, s := range stacks {
		names := make([]string, len(s.Frames))
		for i, f := range s.Frames {
			names[len(s.Frames)-1-i] = foldedName(f.Func())
		}
		counts[strings.Join(names, ";")] += s.Count
	}
	out := make([]FoldedLine, 0, len(counts))
	for k, n := range counts {
		out = append(out, FoldedLine{Frames: strings.Split(k, ";"), Count: n})
	}
	slices.SortFunc(out, func(a, b FoldedLine) int {
		return cmp.Compare(strings.Join(a.Frames, ";"), strings.Join(b.Frames, ";"))
	})
	return out
}

// foldedName keeps a frame name from breaking the format, whose
// separators are ';' between frames and ' ' before the count.
func foldedName(s string) string {
	return strings.NewReplacer(";", "_", " ", "_", "\n", "_").Replace(s)
}

// WriteFolded writes "root;…;leaf count" lines, as flamegraph.pl reads.
func (p *Profile) WriteFolded(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, l := range p.Folded() {
		bw.WriteString(strings.Join(l.Frames, ";"))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(l.Count, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func itoa(n int) string { return strconv.Itoa(n) }
