package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// progressBar draws reading progress on a terminal for big inputs; it is a
// no-op otherwise, so piped output and CI logs stay clean.
type progressBar struct {
	w        *os.File
	total    int64 // bytes of all logs as stored
	finished int64 // bytes of the logs already read
	lastPct  int
}

func newProgressBar(out io.Writer, logs []sparklog.Log) *progressBar {
	var total int64
	for _, l := range logs {
		for _, f := range l.Files {
			if fi, err := os.Stat(f.Path); err == nil && f.Member == "" {
				total += fi.Size()
			}
		}
	}
	w, ok := out.(*os.File)
	if !ok || total < progressMinBytes || !isTerminal(w) {
		return nil
	}
	return &progressBar{w: w, total: total, lastPct: -1}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// update is an sparklog.Options.OnProgress callback for the log being read.
func (b *progressBar) update(p sparklog.Progress) {
	if b == nil {
		return
	}
	done := min(b.finished+p.Done, b.total)
	pct := int(100 * done / b.total)
	if pct == b.lastPct {
		return
	}
	b.lastPct = pct
	const width = 40
	fill := width * pct / 100
	fmt.Fprintf(b.w, "\r[%s%s] %3d%%  %d/%d MB", strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct, done>>20, b.total>>20)
}

// finish records that a log has been read completely.
func (b *progressBar) finish(l sparklog.Log) {
	if b == nil {
		return
	}
	for _, f := range l.Files {
		if fi, err := os.Stat(f.Path); err == nil && f.Member == "" {
			b.finished += fi.Size()
		}
	}
}

// clear erases the bar so that a message can take its line; the next
// update draws it again.
func (b *progressBar) clear() {
	if b != nil {
		fmt.Fprint(b.w, "\r\033[K")
		b.lastPct = -1
	}
}

func (b *progressBar) done() {
	if b != nil {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
