package backfill

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// rendered is what the reading pipeline keeps of an application once its
// samples are in the spool: what choosing the attempt to write and the
// order of the applications need, and where each family's samples are.
type rendered struct {
	appID, appName string
	start          int64 // epoch milliseconds
	live           bool
	chunks         []chunk // by family, in the order of families; nil when not rendered
	samples        int
}

// id is the application's identity: its attempts are one application.
func (a *rendered) id() string { return cmp.Or(a.appID, "name:"+a.appName) }

// chunk is a range of bytes of the spool.
type chunk struct{ off, n int64 }

// spool holds the rendered samples of the applications read until every
// log is read. Workers append to it concurrently, each application's
// families at once.
type spool struct {
	f       *os.File
	removed bool // the file is unlinked already

	mu   sync.Mutex
	size int64
	err  error // the first write that failed: the spool is useless after it
}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "sparkglance-backfill-*.om")
	if err != nil {
		return nil, fmt.Errorf("a temporary file to hold the samples until every log is read: %w", err)
	}
	// Unlinked at once where the system allows it (the file lives on
	// while open): nothing is left behind however the command ends.
	removed := os.Remove(f.Name()) == nil
	return &spool{f: f, removed: removed}, nil
}

// Test hooks, nil but in TestReportsNotKept: testRendered hears of each
// report rendered; testAssembling is called once every log is read,
// before the file is assembled.
var (
	testRendered   func(*analysis.Report)
	testAssembling func()
)

// buffers are the workers' rendering buffers, one application's samples
// at a time.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render runs on the worker that read doc: it writes the samples of an
// application the file may hold (one with an ApplicationStart, finished
// unless includeUnfinished) to the spool, family by family, so that the
// document need not wait for its turn.
func (s *spool) render(doc appdoc.Doc, includeUnfinished bool) (*rendered, error) {
	r := &doc.Report
	a := &rendered{appID: r.AppID, appName: r.AppName, start: r.Start, live: r.Live}
	if doc.Events[sparkevent.TypeApplicationStart] == 0 || (r.Live && !includeUnfinished) {
		return a, nil
	}
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	lens := make([]int64, len(families))
	in := &app{user: doc.User, report: r}
	for i, f := range families {
		n := buf.Len()
		a.samples += writeFamily(buf, f, in)
		lens[i] = int64(buf.Len() - n)
	}
	if testRendered != nil {
		testRendered(r)
	}
	off, err := s.write(buf.Bytes())
	if err != nil {
		return nil, err
	}
	a.chunks = make([]chunk, len(families))
	for i, n := range lens {
		a.chunks[i] = chunk{off, n}
		off += n
	}
	return a, nil
}

// write appends b and returns where it starts.
func (s *spool) write(b []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	off := s.size
	n, err := s.f.Write(b)
	s.size += int64(n)
	if err != nil {
		s.err = fmt.Errorf("holding the samples until every log is read: %w", err)
		return 0, s.err
	}
	return off, nil
}

// copyTo writes a chunk to w.
func (s *spool) copyTo(w *bufio.Writer, c chunk) error {
	if c.n == 0 {
		return nil
	}
	n, err := w.ReadFrom(io.NewSectionReader(s.f, c.off, c.n))
	if err == nil && n < c.n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("copying the samples held until every log was read: %w", err)
	}
	return nil
}

// close closes and removes the file.
func (s *spool) close() error {
	err := s.f.Close()
	if !s.removed {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}
