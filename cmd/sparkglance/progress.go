package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// progressBar draws reading progress on a terminal for big inputs; it is a
// no-op otherwise, so piped output and CI logs stay clean. Logs read in
// parallel report to it at once, so it holds a lock.
type progressBar struct {
	w     *os.File
	total int64 // bytes of all logs as stored

	mu       sync.Mutex
	finished int64         // bytes of the logs already read
	reading  map[int]int64 // bytes read so far of each log being read, by index
	lastPct  int
}

func newProgressBar(out io.Writer, logs []sparklog.Log) *progressBar {
	var total int64
	for _, l := range logs {
		total += storedSize(l)
	}
	if s, ok := out.(human.SafeWriter); ok { // the bar's own escapes are wanted
		out = s.W
	}
	w, ok := out.(*os.File)
	if !ok || total < progressMinBytes || !isTerminal(w) {
		return nil
	}
	return &progressBar{w: w, total: total, lastPct: -1}
}

// storedSize is the size of a log's files on disk (zip members are not
// counted: their archive is).
func storedSize(l sparklog.Log) int64 {
	var n int64
	for _, f := range l.Files {
		if fi, err := os.Stat(f.Path); err == nil && f.Member == "" {
			n += fi.Size()
		}
	}
	return n
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ForLog is the sparklog.Options.OnProgress callback of the i-th log; nil
// when no bar is drawn.
func (b *progressBar) ForLog(i int) func(sparklog.Progress) {
	if b == nil {
		return nil
	}
	return func(p sparklog.Progress) { b.update(i, p) }
}

// update records that the i-th log has p.Done bytes read and redraws when
// the percentage moved.
func (b *progressBar) update(i int, p sparklog.Progress) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reading == nil {
		b.reading = map[int]int64{}
	}
	b.reading[i] = p.Done
	b.drawLocked()
}

func (b *progressBar) drawLocked() {
	done := b.finished
	for _, n := range b.reading {
		done += n
	}
	done = min(done, b.total)
	pct := int(100 * done / b.total)
	if pct == b.lastPct {
		return
	}
	b.lastPct = pct
	const width = 40
	fill := width * pct / 100
	fmt.Fprintf(b.w, "\r[%s%s] %3d%%  %d/%d MB", strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct, done>>20, b.total>>20)
}

// Finish records that the i-th log, l, has been read completely.
func (b *progressBar) Finish(i int, l sparklog.Log) {
	if b == nil {
		return
	}
	n := storedSize(l)
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.reading, i)
	b.finished += n
}

// Clear erases the bar so that a message can take its line; the next
// update draws it again.
func (b *progressBar) Clear() {
	if b != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		fmt.Fprint(b.w, "\r\033[K")
		b.lastPct = -1
	}
}

func (b *progressBar) Done() {
	if b != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		fmt.Fprint(b.w, "\r\033[K")
	}
}
