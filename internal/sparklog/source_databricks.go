package sparklog

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// Databricks writes one directory per application: the current file
// "eventlog" and rolled files "eventlog-YYYY-MM-DD--HH-MM" (often gzipped),
// whose fixed-width timestamps sort in time order as strings.
const databricksCurrent = "eventlog"

var databricksRolled = regexp.MustCompile(`^eventlog-\d{4}-\d{2}-\d{2}--\d{2}-\d{2}(\.[A-Za-z0-9]+)?$`)

func looksDatabricks(entries []os.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() && (e.Name() == databricksCurrent || databricksRolled.MatchString(e.Name())) {
			return true
		}
	}
	return false
}

// databricksLog lays out a Databricks directory: rolled files in time order,
// then eventlog. Databricks marks no in-progress state in names, so the log
// counts as finished; following one is not supported (its current file is
// renamed and compressed when it rolls).
func databricksLog(dir string, entries []os.DirEntry) Log {
	var rolled []string
	current := false
	for _, e := range entries {
		switch {
		case e.IsDir():
		case e.Name() == databricksCurrent:
			current = true
		case databricksRolled.MatchString(e.Name()):
			rolled = append(rolled, e.Name())
		}
	}
	sort.Strings(rolled)
	if current {
		rolled = append(rolled, databricksCurrent)
	}
	l := Log{Key: dir, Path: dir, Layout: LayoutDatabricks}
	for _, n := range rolled {
		l.Files = append(l.Files, LogFile{Path: filepath.Join(dir, n), Codec: codecFromName(n)})
	}
	return l
}
