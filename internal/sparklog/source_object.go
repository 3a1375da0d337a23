package sparklog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
)

// discoverObject is DiscoverWith for an object-store location: the same
// rules as for a local path, with prefixes for directories. A location
// that names an object is that one log (or zip); otherwise it is a prefix,
// listed in pages.
func discoverObject(location string, opts DiscoverOptions) ([]Log, error) {
	canon, err := ResolveLocation(location)
	if err != nil {
		return nil, err
	}
	e, found, err := objstore.Find(canon)
	switch {
	case err != nil:
		return nil, err
	case found && isZipName(canon):
		return discoverZip(canon)
	case found:
		l := singleFileLog(canon)
		l.Files[0].ModTime, l.Files[0].Size = e.ModTime, e.Size
		return []Log{l}, nil
	}
	entries, err := objstore.List(canon, opts.MaxObjectRequests, opts.ObjectListing)
	if err != nil {
		return nil, err
	}
	_, rest, _ := strings.Cut(canon, "://")
	_, key, _ := strings.Cut(rest, "/") // the prefix within its bucket
	return objectLogs(canon, pathBase(key), entries), nil
}

// objectLogs lays out the logs of a listed prefix as discoverLogDir and
// its kin do for a directory: the prefix itself as a rolling or
// Databricks log, or each entry a log of its own.
func objectLogs(dir, base string, entries map[string]objstore.Entry) []Log {
	top := map[string]objstore.Entry{}
	sub := map[string][]objstore.Entry{}
	for rel, e := range entries {
		d, name, nested := strings.Cut(rel, "/")
		if nested {
			e.Key = name
			sub[d] = append(sub[d], e)
			continue
		}
		top[rel] = e
	}
	if isRollingDirName(base) {
		return []Log{objectRolling(dir, mapValues(top))}
	}
	var dirEntries []fs.DirEntry
	for name := range top {
		dirEntries = append(dirEntries, objectDirEntry(name))
	}
	if looksDatabricks(dirEntries) {
		l := databricksLog("", dirEntries)
		l.Key, l.Path = dir, dir
		for i := range l.Files {
			name := l.Files[i].Path
			l.Files[i].Path = dir + "/" + name
			l.Files[i].ModTime, l.Files[i].Size = top[name].ModTime, top[name].Size
		}
		return []Log{l}
	}
	var logs []Log
	for name, e := range top {
		ref := dir + "/" + name
		_, hasFinal := top[strings.TrimSuffix(name, inProgressSuffix)]
		switch {
		case strings.HasPrefix(name, "."):
		case strings.HasSuffix(name, inProgressSuffix) && hasFinal:
		case isZipName(name):
			zl, err := discoverZip(ref)
			if err != nil {
				logs = append(logs, problemLog(ref, unreadableProblem(ref, "cannot read the zip archive", err)))
				continue
			}
			logs = append(logs, zl...)
		default:
			l := singleFileLog(ref)
			l.Files[0].ModTime, l.Files[0].Size = e.ModTime, e.Size
			logs = append(logs, l)
		}
	}
	for name, parts := range sub {
		if isRollingDirName(name) {
			logs = append(logs, objectRolling(dir+"/"+name, parts))
		}
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].Key < logs[j].Key })
	return logs
}

// objectRolling lays out a rolling log's parts, named relative to dir.
func objectRolling(dir string, parts []objstore.Entry) Log {
	names := make([]string, 0, len(parts))
	byName := map[string]objstore.Entry{}
	for _, p := range parts {
		names = append(names, p.Key)
		byName[p.Key] = p
	}
	sort.Strings(names)
	files, inProgress, problems := layoutRolling(dir, names)
	for i := range files {
		e := byName[files[i].Path]
		files[i].ModTime, files[i].Size = e.ModTime, e.Size
		files[i].Path = dir + "/" + files[i].Path
	}
	return Log{Key: dir, Path: dir, Layout: LayoutRolling, Files: files, InProgress: inProgress, Problems: problems}
}

// discoverObjectRolling lists a rolling log's prefix again, for a follower.
func discoverObjectRolling(dir string) (Log, error) {
	entries, err := objstore.List(dir, 0, nil)
	if err != nil {
		return Log{}, err
	}
	var parts []objstore.Entry
	for rel, e := range entries {
		if !strings.Contains(rel, "/") {
			parts = append(parts, e)
		}
	}
	if len(parts) == 0 {
		// A prefix exists only through its objects: none left means the
		// log is gone, as a deleted directory is.
		return Log{}, fmt.Errorf("%s: no objects under the rolling log's prefix: %w", human.QuotedName(dir), fs.ErrNotExist)
	}
	return objectRolling(dir, parts), nil
}

func mapValues(m map[string]objstore.Entry) []objstore.Entry {
	out := make([]objstore.Entry, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// objectDirEntry is a listed object as a directory entry, for the layout
// checks shared with local directories.
type objectDirEntry string

func (e objectDirEntry) Name() string               { return string(e) }
func (e objectDirEntry) IsDir() bool                { return false }
func (e objectDirEntry) Type() fs.FileMode          { return 0 }
func (e objectDirEntry) Info() (fs.FileInfo, error) { return nil, errors.ErrUnsupported }

// useObjectZip is useZip for an archive in an object store: its central
// directory and members are read with ranged reads.
func useObjectZip(ref string) (*zipArchive, error) {
	info, err := objstore.Stat(ref)
	if err != nil {
		return nil, err
	}
	zipCache.Lock()
	za := zipCache.m[ref]
	zipCache.Unlock()
	if za != nil && za.size == info.Size() && za.mtime.Equal(info.ModTime()) {
		za.mu.Lock()
		za.users++
		za.mu.Unlock()
		return za, nil
	}
	za = &zipArchive{path: ref, size: info.Size(), mtime: info.ModTime(), users: 1,
		ra: objstore.NewReaderAt(ref, info.Size())}
	return indexZip(za)
}

// readObjectVersion is readFile for a live object that a connector
// rewrites whole (an S3A/GCS/ABFS single-file .inprogress log at each
// flush): a new version may keep the size while its held-back last line
// changes, e.g. completed in place. Size alone would call it unchanged, so
// when the ETag differs from the version read, the object is read again
// from its last complete line. It costs a request only when the ETag
// changed.
func (fo *Follower) readObjectVersion(st *fileState, final bool) error {
	if st.file.Member != "" || !isObjectPath(st.file.Path) {
		return fo.readFile(st, final)
	}
	if fo.versions == nil {
		fo.versions = map[*fileState]string{}
	}
	sizeRead, versionRead := st.size, fo.versions[st]
	err := fo.readFile(st, final)
	version := objstore.TakeETag(st.file.Path)
	if err == nil && !st.done && sizeRead >= 0 && st.size == sizeRead &&
		versionRead != "" && version != "" && version != versionRead {
		st.size = -1 // not the bytes last read: read from the last complete line
		err = fo.readFile(st, final)
		version = objstore.TakeETag(st.file.Path)
	}
	if err == nil && version != "" {
		fo.versions[st] = version
	}
	return err
}

// statPath is os.Stat for files and a stat request for objects.
func statPath(p string) (fs.FileInfo, error) {
	if isObjectPath(p) {
		return objstore.Stat(p)
	}
	return os.Stat(p)
}

// sameFile tells whether two infos are the same file. An object has no
// identity beyond its name: a live single-file log on a store is rewritten
// whole at each flush, each version continuing the last, so a new version
// is the same log (a shorter one is caught as shrunk).
func sameFile(a, b fs.FileInfo) bool {
	if _, ok := a.(objstore.Info); ok {
		return true
	}
	return os.SameFile(a, b)
}
