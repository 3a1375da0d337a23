package sparklog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Spark's rolling layout (EventLogFileWriters.scala / EventLogFileReaders.scala).
const (
	rollingDirPrefix  = "eventlog_v2_"
	eventsFilePrefix  = "events_"
	appStatusPrefix   = "appstatus_"
	compactSuffix     = ".compact"
	rollingMaxMissing = 3 // missing indices named one by one in a gap problem
)

func isRollingDirName(name string) bool { return strings.HasPrefix(name, rollingDirPrefix) }

func discoverRolling(dir string) (Log, error) {
	if isObjectPath(dir) {
		return discoverObjectRolling(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Log{}, err
	}
	var names []string
	var odd []Problem
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if typ := resolvedType(filepath.Join(dir, e.Name()), e); !typ.IsRegular() && strings.HasPrefix(e.Name(), eventsFilePrefix) {
			// Never opened: reading a named pipe blocks. Its index shows as a gap.
			odd = append(odd, Problem{File: filepath.Join(dir, e.Name()), Kind: ProblemNotRegular,
				Reason: fmt.Sprintf("events file is %s, not a regular file; not read", fileTypeName(typ))})
			continue
		}
		names = append(names, e.Name())
	}
	files, inProgress, problems := layoutRolling(dir, names)
	problems = append(odd, problems...)
	for i := range files {
		files[i].Path = filepath.Join(dir, files[i].Path)
	}
	return Log{
		Key:        dir,
		Path:       dir,
		Layout:     LayoutRolling,
		Files:      files,
		InProgress: inProgress,
		Problems:   problems,
	}, nil
}

// rollingFile is an events_<index>_… name with its parsed parts.
type rollingFile struct {
	name    string
	index   int
	compact bool
}

// layoutRolling orders the events files of a rolling directory as Spark's
// reader does: by index, a .compact file just after the plain file of the
// same index, everything before the last .compact file dropped, and the rest
// required to be contiguous. LogFile.Path holds the bare name; the caller
// makes it a path. Completion is decided by the appstatus name alone.
func layoutRolling(dir string, names []string) (files []LogFile, inProgress bool, problems []Problem) {
	var events []rollingFile
	status := ""
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, appStatusPrefix):
			// Prefer the final name if both exist (rename under way).
			if status == "" || strings.HasSuffix(status, inProgressSuffix) {
				status = n
			}
		case strings.HasPrefix(n, eventsFilePrefix):
			rf, ok := parseEventsName(n)
			if !ok {
				problems = append(problems, layoutProblem(filepath.Join(dir, n), "events file name has no index (want events_<n>_<appId>…); ignored"))
				continue
			}
			events = append(events, rf)
		}
	}
	switch {
	case status == "" && len(events) == 0:
		// Spark creates the directory first, then its appstatus marker, then
		// the events files: an empty directory is an application starting.
		return nil, true, problems
	case status == "":
		problems = append(problems, layoutProblem(dir, "no appstatus_ file; the log is taken as finished"))
	case strings.HasSuffix(status, inProgressSuffix):
		inProgress = true
	}
	if len(events) == 0 {
		if !inProgress { // a live log gets its first events file after the marker
			problems = append(problems, layoutProblem(dir, "no events_<n>_ file"))
		}
		return nil, inProgress, problems
	}
	sort.Slice(events, func(i, j int) bool {
		if events[i].index != events[j].index {
			return events[i].index < events[j].index
		}
		return !events[i].compact && events[j].compact
	})
	start := 0
	for i, e := range events {
		if e.compact {
			start = i
		}
	}
	events = events[start:]
	for i, e := range events {
		if i > 0 {
			prev := events[i-1].index
			if e.index == prev {
				problems = append(problems, layoutProblem(filepath.Join(dir, e.name), "a second events file with index %d; ignored", e.index))
				continue
			}
			if e.index != prev+1 {
				problems = append(problems, Problem{File: dir, Kind: ProblemMissingFile, Reason: gapReason(prev, e.index)})
			}
		}
		files = append(files, LogFile{Path: e.name, Codec: codecFromName(e.name), Index: e.index})
	}
	return files, inProgress, problems
}

// resolvedType is an entry's type, its target's for a symbolic link; a
// dangling link counts as regular (opening it reports the error).
func resolvedType(full string, e os.DirEntry) fs.FileMode {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.Type()
	}
	info, err := os.Stat(full)
	if err != nil {
		return 0
	}
	return info.Mode().Type()
}

func parseEventsName(name string) (rollingFile, bool) {
	rest := strings.TrimPrefix(name, eventsFilePrefix)
	i := strings.IndexByte(rest, '_')
	if i <= 0 {
		return rollingFile{}, false
	}
	idx, err := strconv.Atoi(rest[:i])
	if err != nil || idx < 0 {
		return rollingFile{}, false
	}
	return rollingFile{name: name, index: idx, compact: strings.HasSuffix(name, compactSuffix)}, true
}

func gapReason(prev, next int) string {
	var missing []string
	for i := prev + 1; i < next && len(missing) < rollingMaxMissing; i++ {
		missing = append(missing, strconv.Itoa(i))
	}
	more := ""
	if next-prev-1 > rollingMaxMissing {
		more = ", …"
	}
	return fmt.Sprintf("events file index %s%s missing between %d and %d: events in between are lost", strings.Join(missing, ", "), more, prev, next)
}
