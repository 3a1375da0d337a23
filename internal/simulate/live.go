package simulate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
)

// LiveOptions controls how Live writes a log while "the application runs".
type LiveOptions struct {
	// Codec is "plain" or "zstd" (one zstd frame per flush, as Spark writes
	// with setCloseFrameOnFlush).
	Codec string
	// Speed divides the wall-clock wait between events (1 = real time, 10 =
	// ten times faster, 0 = no waiting at all).
	Speed float64
	// Clock paces the writing; nil is the wall clock.
	Clock Clock
}

// Clock is the time Live paces the log against: the wall clock, or a
// test's, which can play an application's minutes without waiting.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx's error once ctx ends.
	Sleep(ctx context.Context, d time.Duration) error
}

// WallClock is the real time.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// Sleep waits for d on a timer, or until ctx ends.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Live writes the simulated application into dir as Spark does while it
// runs: to <appId>[.zstd].inprogress, writing data only where Spark flushes,
// paced against the wall clock from cfg.Start, and renamed to the final name
// when the application ends. It returns the final path. If ctx ends first,
// the .inprogress file is left as it is, as when a driver dies.
func Live(ctx context.Context, dir string, cfg Config, opt LiveOptions) (string, error) {
	name := cfg.AppID
	switch opt.Codec {
	case "", "plain":
	case "zstd":
		name += ".zstd"
	default:
		return "", fmt.Errorf("simulate: unsupported live codec %q (plain or zstd)", opt.Codec)
	}
	final := filepath.Join(dir, name)
	inprogress := final + ".inprogress"
	f, err := os.Create(inprogress)
	if err != nil {
		return "", err
	}
	clock := opt.Clock
	if clock == nil {
		clock = WallClock{}
	}
	sink := &liveSink{ctx: ctx, f: f, start: cfg.Start.UnixMilli(), clock: clock, wallStart: clock.Now(), speed: opt.Speed}
	if opt.Codec == "zstd" {
		if sink.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest)); err != nil {
			f.Close()
			return "", err
		}
	}
	_, genErr := Generate(cfg, sink)
	if genErr == nil {
		genErr = sink.flush()
	}
	if err := f.Close(); genErr == nil {
		genErr = err
	}
	if genErr != nil {
		return inprogress, genErr
	}
	if cfg.Live {
		return inprogress, nil
	}
	return final, os.Rename(inprogress, final)
}

type liveSink struct {
	ctx       context.Context
	f         *os.File
	enc       *zstd.Encoder
	buf       bytes.Buffer
	start     int64
	clock     Clock
	wallStart time.Time
	speed     float64
}

func (s *liveSink) Line(at int64, line string, flush bool) error {
	if s.speed > 0 {
		due := s.wallStart.Add(time.Duration(float64(at-s.start)/s.speed) * time.Millisecond)
		if wait := due.Sub(s.clock.Now()); wait > 0 {
			if err := s.flush(); err != nil { // what is written before a pause is on disk, as in Spark's buffered stream
				return err
			}
			if err := s.clock.Sleep(s.ctx, wait); err != nil {
				return err
			}
		}
	} else if err := s.ctx.Err(); err != nil {
		return err
	}
	s.buf.WriteString(line)
	s.buf.WriteByte('\n')
	if flush {
		return s.flush()
	}
	return nil
}

// flush writes the buffered lines: as they are, or as one closed zstd frame.
func (s *liveSink) flush() error {
	if s.buf.Len() == 0 {
		return nil
	}
	data := s.buf.Bytes()
	if s.enc != nil {
		data = s.enc.EncodeAll(data, nil)
	}
	s.buf.Reset()
	_, err := s.f.Write(data)
	return err
}
