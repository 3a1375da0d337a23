package sparklog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
)

// LayoutKind tells how a log is stored.
type LayoutKind string

// The layouts Discover recognises.
const (
	LayoutFile       LayoutKind = "file"       // one file: <appId>[_<attempt>][.<codec>][.inprogress]
	LayoutRolling    LayoutKind = "rolling"    // eventlog_v2_<appId>[_<attempt>]/ with events_<n>_… and appstatus_…
	LayoutDatabricks LayoutKind = "databricks" // a directory with eventlog-YYYY-MM-DD--HH-MM[.gz] files and eventlog
)

// inProgressSuffix marks a log (or a rolling log's appstatus file) that is
// still being written.
const inProgressSuffix = ".inprogress"

// Log is one application attempt's event log. The application id is not
// taken from the name (names lie: see local-1426633911242); it is in the
// SparkListenerApplicationStart event.
type Log struct {
	// Key identifies the log stably, also across the rename that ends an
	// in-progress log: the absolute path without ".inprogress" (for a zip
	// member, "<zip>!<member>").
	Key    string
	Path   string // the file or directory as found (the zip path for zip members)
	Layout LayoutKind
	// Files in reading order. For a rolling log these start at the last
	// .compact file.
	Files []LogFile
	// InProgress: the application was still running when the log was
	// discovered (".inprogress" name, or appstatus_….inprogress).
	InProgress bool
	// Problems found while laying the files out (index gaps, no appstatus…);
	// a reader delivers them before any event.
	Problems []Problem
}

// LogFile is one file of a log.
type LogFile struct {
	Path   string      // file system path (for a zip member: the zip file)
	Member string      // member name inside the zip, "" for plain files
	Codec  codec.Codec // from the name; "" when the name's suffix is unknown. Checked against the magic bytes when read.
	Index  int         // events_<Index>_… of a rolling log, 0 otherwise
	// ModTime is the object's last modification as listed, for logs in
	// an object store (zero for files, which are asked when needed).
	ModTime time.Time
	Size    int64 // the object's size as listed (objects only)
}

// Name returns the file's base name, without directories.
func (f LogFile) Name() string {
	if f.Member != "" {
		return pathBase(f.Member)
	}
	return filepath.Base(f.Path)
}

// Ref is how problems and positions name the file.
func (f LogFile) Ref() string {
	if f.Member != "" {
		return f.Path + "!" + f.Member
	}
	return f.Path
}

// DiscoverOptions tune discovery. The zero value is the cautious default.
type DiscoverOptions struct {
	// FollowExternalLinks reads symbolic links in a log directory whose
	// target lies outside that directory. Off, such a link is reported as a
	// ProblemExternalLink and not read: whoever can write into a watched
	// directory should not make the reader open any file the process can.
	FollowExternalLinks bool
	// MaxObjectRequests bounds the listing requests one discovery of an
	// object-store location sends (0: no bound); the listing goes on at
	// the next discovery given the same ObjectListing.
	MaxObjectRequests int
	ObjectListing     *objstore.Listing
}

// Discover is DiscoverWith with the default options.
func Discover(path string) ([]Log, error) { return DiscoverWith(path, DiscoverOptions{}) }

// DiscoverWith finds the event logs at path, which may be one event-log
// file (any codec, in progress or not), a rolling directory (eventlog_v2_*),
// a Databricks-style directory (eventlog plus rolled eventlog-<date> files),
// a .zip as served by the History Server /logs endpoint, or a log directory
// holding many of those.
//
// In a log directory, as in Spark, every non-hidden file is one log and
// sub-directories other than eventlog_v2_* are ignored. A file that is not
// an event log (a README, say) is still returned: reading it reports one
// ProblemNotEventLog, so nothing disappears silently. When both x.inprogress
// and x exist, only x is kept (the rename is under way). An entry that
// cannot be used (an unreadable rolling directory, a damaged zip, a named
// pipe, a link leading outside the directory) is returned as a log holding
// only that problem; the rest of the directory is still read.
//
// path itself may be a symbolic link (its user named it), but only to a
// regular file or a directory. The error is for a path that cannot be read
// at all; damage inside a log is reported as a Problem when the log is read.
func DiscoverWith(path string, opts DiscoverOptions) ([]Log, error) {
	if isObjectPath(path) {
		return discoverObject(path, opts)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return nil, notRegularError(abs, info.Mode())
		}
		if isZipName(abs) {
			return discoverZip(abs)
		}
		return []Log{singleFileLog(abs)}, nil
	}
	if isRollingDirName(filepath.Base(abs)) {
		l, err := discoverRolling(abs)
		if err != nil {
			return nil, err
		}
		return []Log{l}, nil
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	if looksDatabricks(entries) {
		return []Log{databricksLog(abs, entries)}, nil
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	return discoverLogDir(abs, root, entries, opts), nil
}

// discoverLogDir lists the logs of a log directory. root is dir with its
// links resolved, for telling which links lead outside it. Every entry that
// fails becomes a log of its own problem; none stops the listing.
func discoverLogDir(dir, root string, entries []os.DirEntry, opts DiscoverOptions) []Log {
	var logs []Log
	finals := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), inProgressSuffix) {
			finals[e.Name()] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		full := filepath.Join(dir, name)
		typ, p := entryType(full, root, e, opts)
		switch {
		case p != nil:
			logs = append(logs, problemLog(full, *p))
		case typ.IsDir():
			if !isRollingDirName(name) {
				continue
			}
			l, err := discoverRolling(full)
			if err != nil {
				logs = append(logs, problemLog(full, unreadableProblem(full, "cannot list the rolling log directory", err)))
				continue
			}
			logs = append(logs, l)
		case !typ.IsRegular():
			logs = append(logs, problemLog(full, Problem{File: full, Kind: ProblemNotRegular,
				Reason: fmt.Sprintf("%s, not a regular file; not read", fileTypeName(typ))}))
		case isZipName(name):
			zl, err := discoverZip(full)
			if err != nil {
				logs = append(logs, problemLog(full, unreadableProblem(full, "cannot read the zip archive", err)))
				continue
			}
			logs = append(logs, zl...)
		case strings.HasSuffix(name, inProgressSuffix) && finals[strings.TrimSuffix(name, inProgressSuffix)]:
		default:
			logs = append(logs, singleFileLog(full))
		}
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].Key < logs[j].Key })
	return logs
}

// entryType is the type of a directory entry, that of its target for a
// symbolic link. A link leading outside root is a problem unless opts
// allow it. A dangling link counts as a regular file: reading it then
// fails, and a follower tries again (the target may be about to appear).
func entryType(full, root string, e os.DirEntry, opts DiscoverOptions) (fs.FileMode, *Problem) {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.Type(), nil
	}
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return 0, nil
	}
	if !opts.FollowExternalLinks && !within(target, root) {
		return 0, &Problem{File: full, Kind: ProblemExternalLink,
			Reason: fmt.Sprintf("symbolic link to %s, outside %s; not followed (links outside the directory are read only when following external links is enabled)", target, root)}
	}
	info, err := os.Stat(target)
	if err != nil {
		return 0, nil
	}
	return info.Mode().Type(), nil
}

// within reports whether path is dir or lies under it (both resolved).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// problemLog is a log that could not be laid out: reading it delivers its
// problem and nothing else.
func problemLog(path string, p Problem) Log {
	return Log{Key: strings.TrimSuffix(path, inProgressSuffix), Path: path, Layout: LayoutFile, Problems: []Problem{p}}
}

func unreadableProblem(path, what string, err error) Problem {
	return Problem{File: path, Kind: ProblemUnreadable, Reason: fmt.Sprintf("%s: %v; skipped, the rest of the directory is read", what, err)}
}

func singleFileLog(path string) Log {
	return Log{
		Key:        strings.TrimSuffix(path, inProgressSuffix),
		Path:       path,
		Layout:     LayoutFile,
		Files:      []LogFile{{Path: path, Codec: codecFromName(filepath.Base(path))}},
		InProgress: strings.HasSuffix(path, inProgressSuffix),
	}
}

// codecFromName is the codec the name announces, "" when its suffix is not
// a codec Spark writes.
func codecFromName(name string) codec.Codec {
	c, err := codec.FromName(name)
	if err != nil {
		return ""
	}
	return c
}

func isZipName(name string) bool { return strings.EqualFold(filepath.Ext(name), ".zip") }

func pathBase(p string) string {
	if i := strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/'); i >= 0 {
		return strings.TrimSuffix(p[i+1:], "/")
	}
	return strings.TrimSuffix(p, "/")
}

func layoutProblem(file, format string, args ...any) Problem {
	return Problem{File: file, Kind: ProblemLayout, Reason: fmt.Sprintf(format, args...)}
}
