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
	sink := &liveSink{ctx: ctx, f: f, start: cfg.Start.UnixMilli(), wallStart: time.Now(), speed: opt.Speed}
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
	wallStart time.Time
	speed     float64
}

func (s *liveSink) Line(at int64, line string, flush bool) error {
	if s.speed > 0 {
		due := s.wallStart.Add(time.Duration(float64(at-s.start)/s.speed) * time.Millisecond)
		if wait := time.Until(due); wait > 0 {
			if err := s.flush(); err != nil { // what is written before a pause is on disk, as in Spark's buffered stream
				return err
			}
			t := time.NewTimer(wait)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return s.ctx.Err()
			case <-t.C:
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
