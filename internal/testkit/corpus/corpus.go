// Package corpus builds History-Server-like directories of real event logs
// for benchmarks and differential tests: the logs of a source tree (such as
// ../shared/spark-events) copied round after round until the directory
// holds n logs, every copy under its own application id so that none is a
// duplicate of another.
//
// A copy is the original log with every occurrence of its application id
// replaced by a new one (the id with digits appended: the copy round and the
// source directory), re-encoded with its own codec (zstd keeps the window
// its first frame declares) and named as Spark names logs: the new id, the
// attempt, the codec's extension. Rolling eventlog_v2_* directories and zip
// downloads are copied whole, their names and members renamed the same way.
// Databricks-style directories (eventlog plus rolled eventlog-<date> files)
// are left out: Spark finds logs only at a directory's top level, where
// such a directory is never looked into.
//
// A log whose application id cannot be read, or whose codec has no encoder
// here (lz4, snappy, lzf), is copied byte for byte under a name with the
// same digits appended; several copies of such a log may then claim one
// application, as they would in a real directory.
package corpus

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
)

// input is one log of the source tree: a file, a rolling directory or a zip.
type input struct {
	path string
	dir  int // index of its source directory, part of every copy's id
	kind kind
}

type kind int

const (
	single kind = iota
	rolling
	zipped
)

// Inputs lists the logs under src in a stable order (by path): what a
// History Server would find at the top level of each directory of the tree;
// src itself when it is a file (Build then writes n copies of that log).
func Inputs(src string) ([]string, error) {
	ins, err := inputs(src)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(ins))
	for i, in := range ins {
		paths[i] = in.path
	}
	return paths, nil
}

func inputs(src string) ([]input, error) {
	if st, err := os.Stat(src); err == nil && st.Mode().IsRegular() {
		return []input{{path: src, kind: single}}, nil
	}
	var ins []input
	dirs := map[string]int{}
	dirIndex := func(d string) int {
		if i, ok := dirs[d]; ok {
			return i
		}
		dirs[d] = len(dirs)
		return dirs[d]
	}
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		switch {
		case p == src:
			return nil
		case e.IsDir() && strings.HasPrefix(name, "eventlog_v2_"):
			ins = append(ins, input{path: p, dir: dirIndex(filepath.Dir(p)), kind: rolling})
			return fs.SkipDir
		case e.IsDir() && isDatabricksDir(p):
			return fs.SkipDir
		case e.IsDir(), strings.HasPrefix(name, "."), strings.HasSuffix(name, ".md"):
			return nil
		case strings.HasSuffix(name, ".zip"):
			ins = append(ins, input{path: p, dir: dirIndex(filepath.Dir(p)), kind: zipped})
		case e.Type().IsRegular():
			ins = append(ins, input{path: p, dir: dirIndex(filepath.Dir(p)), kind: single})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus: listing %s: %w", src, err)
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("corpus: no event log under %s", src)
	}
	return ins, nil
}

// isDatabricksDir says whether dir holds Databricks' current "eventlog" file.
func isDatabricksDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "eventlog"))
	return err == nil && st.Mode().IsRegular()
}

// Build writes n logs copied from the logs under src into dst (created if
// missing, expected empty) and returns their paths in the order written.
func Build(dst, src string, n int) ([]string, error) {
	if n <= 0 {
		return nil, fmt.Errorf("corpus: %d logs asked for", n)
	}
	ins, err := inputs(src)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]string{}
	for round := 0; len(out) < n; round++ {
		for _, in := range ins {
			if len(out) == n {
				break
			}
			suffix := fmt.Sprintf("%03d%05d", in.dir, round)
			var p string
			switch in.kind {
			case rolling:
				p, err = copyRolling(dst, in.path, suffix)
			case zipped:
				p, err = copyZip(dst, in.path, suffix)
			default:
				p, err = copyFile(dst, in.path, suffix)
			}
			if err != nil {
				return out, fmt.Errorf("corpus: copying %s: %w", in.path, err)
			}
			if prev, dup := seen[p]; dup {
				return out, fmt.Errorf("corpus: %s and %s would both be copied to %s", prev, in.path, p)
			}
			seen[p] = in.path
			out = append(out, p)
		}
	}
	return out, nil
}

// appStart is what a log's SparkListenerApplicationStart says of its
// application.
type appStart struct {
	ID      string `json:"App ID"`
	Attempt string `json:"App Attempt ID"`
}

// findApp reads the application id and attempt from decoded log text; a
// zero appStart when no start event is found.
func findApp(text []byte) appStart {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte("SparkListenerApplicationStart")) {
			continue
		}
		var a appStart
		if json.Unmarshal(line, &a) == nil && a.ID != "" {
			return a
		}
	}
	return appStart{}
}

// decoded is one file's text and how it was stored.
type decoded struct {
	text   []byte
	codec  codec.Codec
	window int64 // zstd's declared window
}

// decode reads a file whole through its codec (named or sniffed). ok is
// false when the file cannot be decoded to its end or has no encoder here:
// it is then copied as it is.
func decode(path string) (d decoded, ok bool, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return decoded{}, false, err
	}
	c, err := codec.Detect(filepath.Base(path), raw[:min(len(raw), 64)])
	if err != nil || !encodable(c) {
		return decoded{text: raw}, false, nil
	}
	r, err := codec.NewReader(c, bytes.NewReader(raw), codec.Checkpoint{})
	if err != nil {
		return decoded{text: raw}, false, nil
	}
	text, err := io.ReadAll(r)
	if err != nil {
		return decoded{text: raw}, false, nil
	}
	d = decoded{text: text, codec: c}
	if c == codec.Zstd {
		d.window = codec.ZstdWindow(raw[:min(len(raw), 18)])
	}
	return d, true, nil
}

func encodable(c codec.Codec) bool {
	return c == codec.Plain || c == codec.Zstd || c == codec.Gzip
}

// encode writes text to w in c.
func encode(w io.Writer, text []byte, c codec.Codec, window int64) error {
	switch c {
	case codec.Plain:
		_, err := w.Write(text)
		return err
	case codec.Gzip:
		zw := gzip.NewWriter(w)
		if _, err := zw.Write(text); err != nil {
			return err
		}
		return zw.Close()
	case codec.Zstd:
		opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedDefault)}
		if window > 0 {
			opts = append(opts, zstd.WithWindowSize(powerOfTwo(window)))
		}
		zw, err := zstd.NewWriter(w, opts...)
		if err != nil {
			return err
		}
		if _, err := zw.Write(text); err != nil {
			return err
		}
		return zw.Close()
	}
	return fmt.Errorf("no encoder for codec %s", c)
}

// powerOfTwo is the zstd encoder's window for a declared one: a power of two
// within the encoder's bounds.
func powerOfTwo(w int64) int {
	p := zstd.MinWindowSize
	for int64(p) < w && p < zstd.MaxWindowSize {
		p <<= 1
	}
	return p
}

// extension is the file name suffix Spark gives c.
func extension(c codec.Codec) string {
	switch c {
	case codec.Plain, "":
		return ""
	case codec.Gzip:
		return ".gz"
	}
	return "." + string(c)
}

// copyFile copies one single-file log into dst and returns the copy's path.
func copyFile(dst, path, suffix string) (string, error) {
	d, ok, err := decode(path)
	if err != nil {
		return "", err
	}
	var app appStart
	if ok {
		app = findApp(d.text)
	}
	if app.ID == "" {
		return writeFile(filepath.Join(dst, rawName(filepath.Base(path), suffix)), d.text)
	}
	newID := app.ID + suffix
	name := newID
	if app.Attempt != "" {
		name += "_" + app.Attempt
	}
	name += extension(d.codec)
	var buf bytes.Buffer
	if err := encode(&buf, bytes.ReplaceAll(d.text, []byte(app.ID), []byte(newID)), d.codec, d.window); err != nil {
		return "", err
	}
	return writeFile(filepath.Join(dst, name), buf.Bytes())
}

// rawName is a copied-as-is file's name: suffix before the extension.
func rawName(base, suffix string) string {
	ext := filepath.Ext(base)
	if ext == base {
		ext = ""
	}
	return strings.TrimSuffix(base, ext) + "-" + suffix + ext
}

// copyRolling copies a rolling eventlog_v2_<app> directory, renaming it and
// its files after the new id.
func copyRolling(dst, dir, suffix string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	files := map[string]decoded{}
	var app appStart
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		d, ok, err := decode(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("%s: cannot be decoded and re-encoded", e.Name())
		}
		if app.ID == "" && strings.HasPrefix(e.Name(), "events_") {
			app = findApp(d.text)
		}
		files[e.Name()] = d
	}
	oldID := strings.TrimPrefix(filepath.Base(dir), "eventlog_v2_")
	if app.ID != "" {
		oldID = app.ID
	}
	newID := oldID + suffix
	out := filepath.Join(dst, strings.ReplaceAll(filepath.Base(dir), oldID, newID))
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		d := files[name]
		var buf bytes.Buffer
		if err := encode(&buf, bytes.ReplaceAll(d.text, []byte(oldID), []byte(newID)), d.codec, d.window); err != nil {
			return "", err
		}
		if _, err := writeFile(filepath.Join(out, strings.ReplaceAll(name, oldID, newID)), buf.Bytes()); err != nil {
			return "", err
		}
	}
	return out, nil
}

// copyZip copies a History Server /logs zip, each member's text and name
// renamed after its application's new id.
func copyZip(dst, path, suffix string) (string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	type member struct {
		name string
		text []byte
	}
	var members []member
	var app appStart
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		text, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		if app.ID == "" {
			app = findApp(text)
		}
		members = append(members, member{f.Name, text})
	}
	if app.ID == "" {
		return "", errors.New("no application start in any member")
	}
	newID := app.ID + suffix
	name := strings.ReplaceAll(filepath.Base(path), app.ID, newID)
	if name == filepath.Base(path) {
		name = rawName(name, suffix)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.Create(strings.ReplaceAll(m.name, app.ID, newID))
		if err != nil {
			return "", err
		}
		if _, err := w.Write(bytes.ReplaceAll(m.text, []byte(app.ID), []byte(newID))); err != nil {
			return "", err
		}
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return writeFile(filepath.Join(dst, name), buf.Bytes())
}

// writeFile writes b to a new file at p (failing if p exists, so that two
// copies never land on one name) and returns p.
func writeFile(p string, b []byte) (string, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}
