package sparklog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// objectListPageSize is the most keys one listing request returns (S3's
// and gocloud's maximum), so that 10,000 applications cost 10 requests.
const objectListPageSize = 1000

// ObjectListing carries the paginated listing of one object-store
// location from one scan to the next. With a request budget
// (DiscoverOptions.MaxObjectRequests), a listing longer than the budget is
// continued where it stopped at the next scan; until a pass is complete,
// the previous complete pass (plus what the current one found so far)
// stands for the location, so no application seems to vanish because its
// page was not reached yet. The zero value is ready to use; it is not safe
// for concurrent use.
type ObjectListing struct {
	token    []byte
	partial  map[string]objectEntry
	last     map[string]objectEntry
	complete bool // last holds a complete pass
	// Requests is the number of listing requests of the last scan.
	Requests int
	// Complete says the last scan finished a pass over the whole location.
	Complete bool
}

// objectEntry is one object found by a listing.
type objectEntry struct {
	key   string // relative to the listed prefix
	size  int64
	mtime time.Time
}

// discoverObject is DiscoverWith for an object-store location: the same
// rules as for a local path, with prefixes for directories. A location
// that names an object is that one log (or zip); otherwise it is a prefix,
// listed in pages.
func discoverObject(location string, opts DiscoverOptions) ([]Log, error) {
	canon, err := ResolveLocation(location)
	if err != nil {
		return nil, err
	}
	ob, key, err := splitObjectPath(canon)
	if err != nil {
		return nil, err
	}
	ctx, cancel := objectCall(context.Background())
	defer cancel()
	b, err := ob.bucket(ctx)
	if err != nil {
		return nil, err
	}
	if key != "" {
		a, err := objectAttributes(ctx, b, key)
		switch {
		case err == nil:
			if isZipName(key) {
				return discoverZip(canon)
			}
			l := singleFileLog(canon)
			l.Files[0].ModTime, l.Files[0].Size = a.mtime, a.size
			return []Log{l}, nil
		case gcerrors.Code(err) != gcerrors.NotFound:
			return nil, objectError(canon, err)
		}
	}
	entries, err := listObjects(ctx, b, canon, key, opts)
	if err != nil {
		return nil, err
	}
	return objectLogs(canon, pathBase(key), entries), nil
}

// listObjects lists everything under key/ (the bucket for ""), in pages,
// within the budget of opts.
func listObjects(ctx context.Context, b *blob.Bucket, ref, key string, opts DiscoverOptions) (map[string]objectEntry, error) {
	prefix := ""
	if key != "" {
		prefix = strings.TrimSuffix(key, "/") + "/"
	}
	st := opts.ObjectListing
	if st == nil {
		st = &ObjectListing{}
	}
	if st.partial == nil {
		st.partial = map[string]objectEntry{}
	}
	st.Requests, st.Complete = 0, false
	for {
		if opts.MaxObjectRequests > 0 && st.Requests >= opts.MaxObjectRequests {
			break // the budget of this scan is spent: go on at the next one
		}
		token := st.token
		if len(token) == 0 {
			token = blob.FirstPageToken
		}
		objs, next, err := b.ListPage(ctx, token, objectListPageSize, s3ListOptions(b, prefix))
		st.Requests++
		if err != nil {
			st.token = nil
			clear(st.partial)
			return nil, objectError(ref, err)
		}
		for _, o := range objs {
			rel := strings.TrimPrefix(listedKey(b, o), prefix)
			if o.IsDir || rel == "" || strings.Count(rel, "/") > 1 {
				continue // deeper than a rolling log's parts: not read, as on disk
			}
			st.partial[rel] = objectEntry{key: rel, size: o.Size, mtime: o.ModTime}
		}
		st.token = next
		if len(next) == 0 {
			st.last, st.partial, st.complete, st.Complete = st.partial, nil, true, true
			return st.last, nil
		}
	}
	merged := make(map[string]objectEntry, len(st.last)+len(st.partial))
	for k, v := range st.last {
		merged[k] = v
	}
	for k, v := range st.partial {
		merged[k] = v
	}
	return merged, nil
}

// objectLogs lays out the logs of a listed prefix as discoverLogDir and
// its kin do for a directory: the prefix itself as a rolling or
// Databricks log, or each entry a log of its own.
func objectLogs(dir, base string, entries map[string]objectEntry) []Log {
	top := map[string]objectEntry{}
	sub := map[string][]objectEntry{}
	for rel, e := range entries {
		d, name, nested := strings.Cut(rel, "/")
		if nested {
			e.key = name
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
			l.Files[i].ModTime, l.Files[i].Size = top[name].mtime, top[name].size
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
			l.Files[0].ModTime, l.Files[0].Size = e.mtime, e.size
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
func objectRolling(dir string, parts []objectEntry) Log {
	names := make([]string, 0, len(parts))
	byName := map[string]objectEntry{}
	for _, p := range parts {
		names = append(names, p.key)
		byName[p.key] = p
	}
	sort.Strings(names)
	files, inProgress, problems := layoutRolling(dir, names)
	for i := range files {
		e := byName[files[i].Path]
		files[i].ModTime, files[i].Size = e.mtime, e.size
		files[i].Path = dir + "/" + files[i].Path
	}
	return Log{Key: dir, Path: dir, Layout: LayoutRolling, Files: files, InProgress: inProgress, Problems: problems}
}

// discoverObjectRolling lists a rolling log's prefix again, for a follower.
func discoverObjectRolling(dir string) (Log, error) {
	ctx, cancel := objectCall(context.Background())
	defer cancel()
	b, key, err := objectBucketOf(ctx, dir)
	if err != nil {
		return Log{}, err
	}
	entries, err := listObjects(ctx, b, dir, key, DiscoverOptions{})
	if err != nil {
		return Log{}, err
	}
	var parts []objectEntry
	for rel, e := range entries {
		if !strings.Contains(rel, "/") {
			parts = append(parts, e)
		}
	}
	if len(parts) == 0 {
		// A prefix exists only through its objects: none left means the
		// log is gone, as a deleted directory is.
		return Log{}, fmt.Errorf("%s: no objects under the rolling log's prefix: %w", quoteName(dir), fs.ErrNotExist)
	}
	return objectRolling(dir, parts), nil
}

func mapValues(m map[string]objectEntry) []objectEntry {
	out := make([]objectEntry, 0, len(m))
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
	info, err := statObject(ref)
	if err != nil {
		return nil, err
	}
	zipCache.Lock()
	za := zipCache.m[ref]
	zipCache.Unlock()
	if za != nil && za.size == info.size && za.mtime.Equal(info.mtime) {
		za.mu.Lock()
		za.users++
		za.mu.Unlock()
		return za, nil
	}
	za = &zipArchive{path: ref, size: info.size, mtime: info.mtime, users: 1,
		ra: &objectReaderAt{ref: ref, size: info.size}}
	return indexZip(za)
}

var _ io.ReaderAt = (*objectReaderAt)(nil)
