package testkit

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// SyncBuffer is an output sink several goroutines may write to while a
// test reads it (a logger, a child process's output).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// written is closed by the next Write, so that Await wakes on writes
	// instead of polling; nil until someone waits.
	written chan struct{}
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// Await waits until done accepts the text written so far, checking after
// each write, and returns that text and true; after timeout it returns the
// text and false.
func (b *SyncBuffer) Await(timeout time.Duration, done func(text string) bool) (string, bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		b.mu.Lock()
		text := b.buf.String()
		if b.written == nil {
			b.written = make(chan struct{})
		}
		written := b.written
		b.mu.Unlock()
		if done(text) {
			return text, true
		}
		select {
		case <-written:
		case <-timer.C:
			return text, false
		}
	}
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines returns the non-empty lines written so far that contain substr.
func (b *SyncBuffer) Lines(substr string) []string {
	var out []string
	for _, line := range strings.Split(b.String(), "\n") {
		if line != "" && strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}
