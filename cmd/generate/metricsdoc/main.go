// Command metricsdoc writes docs/metrics.md (or the file -o names) from the
// metric schema, internal/metricschema, as cmd/generate/reference renders it
// (`make docs`).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/sparkglance/sparkglance/cmd/generate/reference"
)

func main() {
	out := flag.String("o", "docs/metrics.md", "file to write")
	flag.Parse()
	var b bytes.Buffer
	if err := reference.WriteDoc(&b); err != nil {
		fmt.Fprintln(os.Stderr, "metricsdoc:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "metricsdoc:", err)
		os.Exit(1)
	}
}
