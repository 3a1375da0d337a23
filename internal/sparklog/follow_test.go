package sparklog

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// followDeadline bounds every follow test.
const followDeadline = 5 * time.Second

// flushes groups the lines of a real log into the flushes a Spark driver
// would make (1 to 8 events each), each written as its bytes (plain) or as
// one zstd frame, then cut in two so a reader can see half of it.
func flushes(t *testing.T, lines [][]byte, compress bool, rng *rand.Rand) [][]byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var parts [][]byte
	for i := 0; i < len(lines); {
		n := min(1+rng.IntN(8), len(lines)-i)
		data := bytes.Join(lines[i:i+n], nil)
		i += n
		if compress {
			data = enc.EncodeAll(data, nil)
		}
		cut := 1 + rng.IntN(len(data)-1)
		parts = append(parts, data[:cut], data[cut:])
	}
	return parts
}

// writer appends parts to a live file from its own goroutine. In lockstep
// mode it writes one part per poll (so every partial line or frame is seen
// by a poll); otherwise it runs freely with short pauses.
type writer struct {
	t        *testing.T
	lockstep bool
	polled   chan struct{}
	done     chan struct{}
	started  atomic.Int64 // steps begun; a step's effect is visible only after
	steps    int
	err      error
}

func startWriter(t *testing.T, lockstep bool, steps []func() error) *writer {
	w := &writer{t: t, lockstep: lockstep, polled: make(chan struct{}), done: make(chan struct{}), steps: len(steps)}
	go func() {
		defer close(w.done)
		for _, step := range steps {
			if w.lockstep {
				select {
				case <-w.polled:
				case <-time.After(followDeadline):
					return
				}
			} else {
				time.Sleep(50 * time.Microsecond)
			}
			w.started.Add(1)
			if err := step(); err != nil {
				w.err = err
				return
			}
		}
	}()
	return w
}

// afterPoll lets a lockstep writer take its next step.
func (w *writer) afterPoll() {
	if w.lockstep {
		select {
		case w.polled <- struct{}{}:
		case <-w.done:
		}
	}
}

func appendTo(path string, data []byte) func() error {
	return func() error {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

func rename(from, to string) func() error { return func() error { return os.Rename(from, to) } }

// pollUntilFinished polls fo while w writes, until the log is finished.
func pollUntilFinished(t *testing.T, fo *Follower, w *writer) (polls int) {
	t.Helper()
	deadline := time.Now().Add(followDeadline)
	for time.Now().Before(deadline) {
		res, err := fo.Poll()
		polls++
		if err != nil {
			t.Fatalf("poll %d: %v", polls, err)
		}
		if res.Finished {
			if n := w.started.Load(); n != int64(w.steps) {
				t.Fatalf("finished after %d of %d writer steps", n, w.steps)
			}
			<-w.done
			if w.err != nil {
				t.Fatal(w.err)
			}
			return polls
		}
		w.afterPoll()
		if !w.lockstep {
			time.Sleep(100 * time.Microsecond)
		}
	}
	t.Fatalf("not finished after %v and %d polls: %+v", followDeadline, polls, fo.Stats())
	return polls
}

// checkFollowed asserts every event was seen once, in order, with
// consecutive line numbers per file, and no problem.
func checkFollowed(t *testing.T, rec *recorder, lines [][]byte) {
	t.Helper()
	if len(rec.problems) != 0 {
		t.Errorf("problems while following: %v", rec.problems)
	}
	requireSameTypes(t, recordedTypes(rec), eventTypes(t, lines))
	var file string
	var line int64
	for i, pos := range rec.positions {
		if pos.File != file && pos.Line == 1 {
			file, line = pos.File, 0
		}
		if pos.Line != line+1 {
			t.Fatalf("event %d at %s:%d, want line %d", i, pos.File, pos.Line, line+1)
		}
		line = pos.Line
	}
}

func TestFollowGrowingFileAcrossRename(t *testing.T) {
	lines := bytes.SplitAfter(readShared(t, "local-1430917381534"), []byte("\n"))
	lines = lines[:len(lines)-1] // after the final newline
	for _, tc := range []struct {
		name     string
		compress bool
		lockstep bool
	}{
		{"plain-lockstep", false, true},
		{"plain-free", false, false},
		{"zstd-lockstep", true, true},
		{"zstd-free", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
			final := filepath.Join(t.TempDir(), "local-1430917381534")
			if tc.compress {
				final += ".zstd"
			}
			live := final + inProgressSuffix
			writeFile(t, live, nil)
			parts := flushes(t, lines, tc.compress, rng)
			var steps []func() error
			maxPart := 0
			for _, p := range parts {
				steps = append(steps, appendTo(live, p))
				maxPart = max(maxPart, len(p))
			}
			steps = append(steps, rename(live, final))

			log := discoverOne(t, live)
			rec := &recorder{}
			fo := NewFollower(log, rec, Options{})
			w := startWriter(t, tc.lockstep, steps)
			polls := pollUntilFinished(t, fo, w)

			checkFollowed(t, rec, lines)
			got := fo.Log()
			if got.Key != final || got.Path != final || got.InProgress {
				t.Errorf("after the rename the log is %+v, want key and path %s", got, final)
			}
			size := int64(len(bytes.Join(parts, nil)))
			st := fo.Stats()
			if st.BytesIn != size || !st.Finished || st.Pending != 0 {
				t.Errorf("stats %+v, want %d bytes in", st, size)
			}
			// Each poll resumes at a checkpoint at most one flush back: the
			// file is never re-read from its start.
			if readIn := fo.states[0].readIn; readIn > size+int64(polls)*int64(2*maxPart) {
				t.Errorf("read %d bytes over %d polls for a %d-byte file", readIn, polls, size)
			}
			t.Logf("%d parts, %d polls, %d bytes read for %d", len(parts), polls, fo.states[0].readIn, size)
			if tc.lockstep && polls < len(parts) {
				t.Errorf("only %d polls for %d parts", polls, len(parts))
			}
		})
	}
}

// TestFollowRollingDirectory: a rolling log gains its second events file,
// then the appstatus rename ends it.
func TestFollowRollingDirectory(t *testing.T) {
	lines := realLines(t)
	dir := filepath.Join(t.TempDir(), "eventlog_v2_local-1422981759269")
	status := filepath.Join(dir, "appstatus_local-1422981759269")
	ev1 := filepath.Join(dir, "events_1_local-1422981759269.zstd")
	ev2 := filepath.Join(dir, "events_2_local-1422981759269.zstd")
	writeFile(t, status+inProgressSuffix, nil)
	writeFile(t, ev1, nil)

	rng := rand.New(rand.NewPCG(3, 4))
	var steps []func() error
	for _, p := range flushes(t, lines[:50], true, rng) {
		steps = append(steps, appendTo(ev1, p))
	}
	for _, p := range flushes(t, lines[50:], true, rng) {
		steps = append(steps, appendTo(ev2, p))
	}
	// pollUntilFinished fails if the log is finished before this last step.
	steps = append(steps, rename(status+inProgressSuffix, status))

	log := discoverOne(t, dir)
	if !log.InProgress || len(log.Files) != 1 {
		t.Fatalf("log %+v", log)
	}
	rec := &recorder{}
	follower := NewFollower(log, rec, Options{})
	w := startWriter(t, true, steps)
	pollUntilFinished(t, follower, w)

	checkFollowed(t, rec, lines)
	if got := follower.Log(); got.InProgress || len(got.Files) != 2 {
		t.Errorf("log after following: %+v", got)
	}
	if p := rec.positions[50]; p.File != ev2 || p.Line != 1 {
		t.Errorf("first event of the second file at %+v", p)
	}
	if strings.Contains(rec.positions[49].File, "events_2") {
		t.Errorf("event 50 placed in the second file")
	}
}
