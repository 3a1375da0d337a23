package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"

	"github.com/sparkglance/sparkglance/third_party/uplot"
)

// ComparePage is what the comparison page of two runs is built from.
type ComparePage struct {
	// Doc is a JSON object with "comparison" (what `compare --json`
	// writes), "baseDoc" and "newDoc" (the two runs' analysis documents).
	Doc   []byte
	Title string
}

// WriteCompare writes the self-contained comparison page: both runs'
// three charts on one relative time axis, synced, and the tables.
func WriteCompare(w io.Writer, p ComparePage) error {
	var check struct {
		Comparison json.RawMessage `json:"comparison"`
		Base       json.RawMessage `json:"baseDoc"`
		New        json.RawMessage `json:"newDoc"`
	}
	if err := json.Unmarshal(p.Doc, &check); err != nil || check.Comparison == nil || check.Base == nil || check.New == nil {
		return fmt.Errorf("report: the comparison document is not an object with comparison, baseDoc and newDoc (%v)", err)
	}
	var doc bytes.Buffer
	json.HTMLEscape(&doc, bytes.TrimSpace(p.Doc))
	return compareTmpl.Execute(w, map[string]any{
		"Title":    p.Title,
		"Doc":      template.JS(doc.String()),
		"UPlotJS":  template.JS(uplot.JS),
		"UPlotCSS": template.CSS(uplot.CSS),
		"JS":       template.JS(compareJS),
		"CSS":      template.CSS(glanceCSS),
	})
}
