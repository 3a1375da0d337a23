package sparklog

import (
	"sort"
	"strings"
)

// discoverZip lists the logs in a zip as the History Server's /logs endpoint
// builds it: top-level members are single-file logs, members under
// eventlog_v2_*/ form rolling logs. Anything else is ignored.
func discoverZip(zipPath string) ([]Log, error) {
	za, err := useZip(zipPath)
	if err != nil {
		return nil, err
	}
	defer za.release()

	var logs []Log
	rolling := map[string][]string{} // directory → member base names
	finals := map[string]bool{}
	for _, f := range za.files {
		if !strings.HasSuffix(f.Name, inProgressSuffix) {
			finals[f.Name] = true
		}
	}
	for _, f := range za.files {
		name := f.Name
		if strings.HasSuffix(name, "/") || f.FileInfo().IsDir() {
			continue
		}
		dir, base, nested := strings.Cut(name, "/")
		if nested {
			if isRollingDirName(dir) && !strings.Contains(base, "/") {
				rolling[dir] = append(rolling[dir], base)
			}
			continue
		}
		if strings.HasPrefix(name, ".") {
			continue
		}
		if strings.HasSuffix(name, inProgressSuffix) && finals[strings.TrimSuffix(name, inProgressSuffix)] {
			continue
		}
		logs = append(logs, Log{
			Key:        zipPath + "!" + strings.TrimSuffix(name, inProgressSuffix),
			Path:       zipPath,
			Layout:     LayoutFile,
			Files:      []LogFile{{Path: zipPath, Member: name, Codec: codecFromName(name)}},
			InProgress: strings.HasSuffix(name, inProgressSuffix),
		})
	}
	for dir, names := range rolling {
		ref := zipPath + "!" + dir
		files, inProgress, problems := layoutRolling(ref, names)
		for i := range files {
			files[i].Member = dir + "/" + files[i].Path
			files[i].Path = zipPath
		}
		logs = append(logs, Log{Key: ref, Path: zipPath, Layout: LayoutRolling, Files: files, InProgress: inProgress, Problems: problems})
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].Key < logs[j].Key })
	return logs, nil
}
