package metricschema

import (
	"fmt"
	"io"
	"strings"
)

// WriteTables renders the sections as Markdown tables. A family shared by
// several collectors is shown once, in the first section holding it, with
// every collector that emits it; a closed label is shown with its values.
func WriteTables(w io.Writer, sections []Section) error {
	if err := Check(sections); err != nil {
		return err
	}
	emitters := Emitters(sections)
	shown := map[string]bool{}
	var b strings.Builder
	for _, s := range sections {
		fmt.Fprintf(&b, "## %s\n\n| name | type | unit | labels | collectors | description |\n|---|---|---|---|---|---|\n", s.Title)
		for _, m := range s.Metrics {
			if shown[m.Name] {
				continue
			}
			shown[m.Name] = true
			unit := "`" + m.Unit + "`"
			if m.Unit == "" {
				unit = "(varies)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", m.Name, m.Type, unit,
				labelsDoc(m), quoteAll(emitters[m.Name]), strings.ReplaceAll(m.Help, "|", `\|`))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// labelsDoc lists m's labels, each closed one with its values.
func labelsDoc(m *Metric) string {
	out := make([]string, len(m.labels))
	for i, l := range m.labels {
		out[i] = "`" + l.Name + "`"
		if l.Values != nil {
			out[i] += " (" + strings.Join(l.Values, ", ") + ")"
		}
	}
	return strings.Join(out, ", ")
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
