package eventlog

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeNewlineBomb writes a zstd file that decompresses to gib GiB of
// newlines in a few hundred KB: one frame of RLE blocks of 128 KiB each.
func writeNewlineBomb(t *testing.T, path string, gib int) {
	t.Helper()
	const block = 128 << 10
	buf := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // magic; no size, no checksum; a 128 KiB window
	n := gib << 30 / block
	for i := range n {
		h := uint32(block<<3 | 1<<1) // an RLE block of 128 KiB
		if i == n-1 {
			h |= 1 // the last one
		}
		buf = binary.LittleEndian.AppendUint32(buf, h)[:len(buf)+3]
		buf = append(buf, '\n')
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// isOpen reports whether this process holds path open.
func isOpen(path string) bool {
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

// A log decompressing to 10 GiB of blank lines yields no event, so no
// handler call ever stopped its read: the collector went on for over a
// minute after SIGTERM. Reading now looks at the context between reads,
// and Run returns promptly.
func TestWatcherStopsInsideNewlineBomb(t *testing.T) {
	// The reader itself must stop, not stopAll give up waiting for it.
	old := stopWait
	stopWait = time.Minute
	t.Cleanup(func() { stopWait = old })
	dir := t.TempDir()
	path := filepath.Join(dir, "app-20261207120000-0001.zstd")
	writeNewlineBomb(t, path, 10)
	w, err := New(testConfig(dir), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	// The barrier: the bomb is open, being read.
	deadline := time.After(30 * time.Second)
	for !isOpen(path) {
		select {
		case err := <-done:
			t.Fatalf("Run ended before reading the bomb: %v", err)
		case <-deadline:
			t.Fatal("the bomb was not opened within 30 s")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the collector still reads the bomb 10 s after its context was cancelled")
	}
}
