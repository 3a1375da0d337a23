package testkit

import (
	"bytes"
	"strings"
	"sync"
)

// SyncBuffer is an output sink several goroutines may write to while a
// test reads it (a logger, a child process's output).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
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
