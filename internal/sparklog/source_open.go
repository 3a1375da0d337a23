package sparklog

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
)

// errNotRegular marks a path that is a named pipe, device, socket or
// directory: opening a FIFO for reading blocks until a writer comes, so
// only regular files are ever opened.
var errNotRegular = errors.New("not a regular file")

// fileTypeName names a non-regular file type for messages.
func fileTypeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	default:
		return "not a regular file"
	}
}

func notRegularError(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s; only regular files are read: %w", path, fileTypeName(m), errNotRegular)
}

// openRegular opens a regular file for reading and refuses anything else
// without blocking. The type is checked before opening (opening some
// devices has effects) and again on the open descriptor, which was opened
// non-blocking: a FIFO swapped in between is then refused instead of
// waiting forever for a writer.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, notRegularError(path, info.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegularError(path, info.Mode())
	}
	return f, info, nil
}

// statFile returns the current size of a log file as stored.
func statFile(f LogFile) (int64, error) {
	if f.Member == "" && isObjectPath(f.Path) {
		info, err := objstore.Stat(f.Path)
		return info.Size(), err
	}
	if f.Member == "" {
		info, err := os.Stat(f.Path)
		if err != nil {
			return 0, err
		}
		return info.Size(), nil
	}
	za, err := useZip(f.Path)
	if err != nil {
		return 0, err
	}
	defer za.release()
	m, err := za.member(f)
	if err != nil {
		return 0, err
	}
	return int64(m.UncompressedSize64), nil
}

// openFile opens a log file positioned at offset at. Files are opened per
// poll and closed after, so following many logs holds no descriptors.
func openFile(ctx context.Context, f LogFile, at int64) (io.ReadCloser, error) {
	if f.Member == "" && isObjectPath(f.Path) {
		return objstore.Open(ctx, f.Path, at)
	}
	if f.Member == "" {
		fh, _, err := openRegular(f.Path)
		if err != nil {
			return nil, err
		}
		if _, err := fh.Seek(at, io.SeekStart); err != nil {
			fh.Close()
			return nil, err
		}
		return fh, nil
	}
	za, err := useZip(f.Path)
	if err != nil {
		return nil, err
	}
	m, err := za.member(f)
	if err != nil {
		za.release()
		return nil, err
	}
	rc, err := m.Open()
	if err != nil {
		za.release()
		return nil, fmt.Errorf("%s: %w", f.Ref(), err)
	}
	// A zip member cannot seek: skip to at by reading.
	if _, err := io.CopyN(io.Discard, rc, at); err != nil {
		rc.Close()
		za.release()
		return nil, fmt.Errorf("%s: skipping to offset %d: %w", f.Ref(), at, err)
	}
	return zipMemberReader{rc, za}, nil
}

type zipMemberReader struct {
	io.ReadCloser
	zip *zipArchive
}

func (z zipMemberReader) Close() error {
	err := z.ReadCloser.Close()
	z.zip.release()
	return err
}

// zipArchive is a zip file's central directory, parsed once and shared by
// every read of its members: re-reading it per member would make a zip of
// n members cost n² to read. The file itself is open only while some
// member is being read (users > 0), so idle archives hold no descriptor.
type zipArchive struct {
	path    string
	size    int64
	mtime   time.Time
	members map[string]*zip.File // by name; the first of duplicates, as a linear search finds
	files   []*zip.File          // in central-directory order

	mu    sync.Mutex
	f     *os.File
	users int
	// ra serves an archive in an object store instead of f.
	ra io.ReaderAt
}

// ReadAt serves the zip reader from the file opened by the current users.
func (za *zipArchive) ReadAt(p []byte, off int64) (int, error) {
	if za.ra != nil {
		return za.ra.ReadAt(p, off)
	}
	za.mu.Lock()
	f := za.f
	za.mu.Unlock()
	if f == nil {
		return 0, fmt.Errorf("%s: zip archive read while not open", za.path)
	}
	return f.ReadAt(p, off)
}

func (za *zipArchive) release() {
	za.mu.Lock()
	defer za.mu.Unlock()
	za.users--
	if za.users == 0 && za.f != nil {
		za.f.Close()
		za.f = nil
	}
}

func (za *zipArchive) member(f LogFile) (*zip.File, error) {
	if m := za.members[f.Member]; m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("%s: no such member: %w", f.Ref(), os.ErrNotExist)
}

// maxCachedZips bounds the central directories kept between reads.
const maxCachedZips = 16

var zipCache = struct {
	sync.Mutex
	m map[string]*zipArchive
}{m: map[string]*zipArchive{}}

// useZip returns the archive at path, open for reading until release. The
// cached central directory is reused while the file keeps its size and
// modification time; otherwise it is read again.
func useZip(path string) (*zipArchive, error) {
	if isObjectPath(path) {
		return useObjectZip(path)
	}
	fh, info, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	zipCache.Lock()
	za := zipCache.m[path]
	zipCache.Unlock()
	if za != nil && za.size == info.Size() && za.mtime.Equal(info.ModTime()) {
		za.mu.Lock()
		if za.f == nil {
			za.f, fh = fh, nil
		}
		za.users++
		za.mu.Unlock()
		if fh != nil {
			fh.Close() // the archive's users already hold it open
		}
		return za, nil
	}
	za = &zipArchive{path: path, size: info.Size(), mtime: info.ModTime(), f: fh, users: 1}
	return indexZip(za)
}

// zipIndexes counts the central directories read, so that a test can
// tell a zip of many members is indexed once, not once per member.
var zipIndexes atomic.Int64

// indexZip reads a new archive's central directory and caches it.
func indexZip(za *zipArchive) (*zipArchive, error) {
	zipIndexes.Add(1)
	zr, err := zip.NewReader(za, za.size)
	if err != nil {
		za.release()
		return nil, fmt.Errorf("%s: %w", za.path, err)
	}
	za.files = zr.File
	za.members = make(map[string]*zip.File, len(zr.File))
	for _, m := range zr.File {
		if _, dup := za.members[m.Name]; !dup {
			za.members[m.Name] = m
		}
	}
	zipCache.Lock()
	if len(zipCache.m) >= maxCachedZips {
		for k := range zipCache.m { // evict any: users keep their pointer
			delete(zipCache.m, k)
			break
		}
	}
	zipCache.m[za.path] = za
	zipCache.Unlock()
	return za, nil
}
