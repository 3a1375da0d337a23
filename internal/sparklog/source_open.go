package sparklog

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
)

// statFile returns the current size of a log file as stored.
func statFile(f LogFile) (int64, error) {
	if f.Member == "" {
		info, err := os.Stat(f.Path)
		if err != nil {
			return 0, err
		}
		return info.Size(), nil
	}
	zr, err := zip.OpenReader(f.Path)
	if err != nil {
		return 0, err
	}
	defer zr.Close()
	m, err := zipMember(zr, f)
	if err != nil {
		return 0, err
	}
	return int64(m.UncompressedSize64), nil
}

// openFile opens a log file positioned at offset at. Files are opened per
// poll and closed after, so following many logs holds no descriptors.
func openFile(f LogFile, at int64) (io.ReadCloser, error) {
	if f.Member == "" {
		fh, err := os.Open(f.Path)
		if err != nil {
			return nil, err
		}
		if _, err := fh.Seek(at, io.SeekStart); err != nil {
			fh.Close()
			return nil, err
		}
		return fh, nil
	}
	zr, err := zip.OpenReader(f.Path)
	if err != nil {
		return nil, err
	}
	m, err := zipMember(zr, f)
	if err != nil {
		zr.Close()
		return nil, err
	}
	rc, err := m.Open()
	if err != nil {
		zr.Close()
		return nil, fmt.Errorf("%s: %w", f.Ref(), err)
	}
	// A zip member cannot seek: skip to at by reading.
	if _, err := io.CopyN(io.Discard, rc, at); err != nil {
		rc.Close()
		zr.Close()
		return nil, fmt.Errorf("%s: skipping to offset %d: %w", f.Ref(), at, err)
	}
	return zipMemberReader{rc, zr}, nil
}

func zipMember(zr *zip.ReadCloser, f LogFile) (*zip.File, error) {
	for _, m := range zr.File {
		if m.Name == f.Member {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%s: no such member: %w", f.Ref(), os.ErrNotExist)
}

type zipMemberReader struct {
	io.ReadCloser
	zip *zip.ReadCloser
}

func (z zipMemberReader) Close() error {
	err := z.ReadCloser.Close()
	if zerr := z.zip.Close(); err == nil {
		err = zerr
	}
	return err
}
