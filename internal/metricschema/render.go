package metricschema

import (
	"fmt"
	"io"
	"strings"
)

// WriteTables renders the sections as Markdown tables. A family shared by
// several collectors is shown once, in the first section holding it, with
// every collector that emits it.
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
				quoteAll(m.Labels), quoteAll(emitters[m.Name]), strings.ReplaceAll(m.Help, "|", `\|`))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
