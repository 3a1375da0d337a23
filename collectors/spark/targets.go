package spark

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v2"
)

// target is one Spark endpoint to read.
type target struct {
	base *url.URL
	// metricsOnly is set when the URL names a metrics endpoint itself
	// (…/json or …/prometheus, e.g. a standalone master's
	// /metrics/master/json); otherwise base is a Spark UI (driver, History
	// Server, YARN proxy) whose REST API and metrics path are read.
	metricsOnly bool
}

// name is the target label: the URL without credentials or query.
func (t target) name() string { return displayURL(t.base) }

// parseTarget accepts a full URL or, as in file_sd, host:port.
func parseTarget(raw, defaultScheme, path string) (target, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = defaultScheme + "://" + s + path
	}
	u, err := url.Parse(s)
	if err != nil {
		return target{}, fmt.Errorf("target %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return target{}, fmt.Errorf("target %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return target{}, fmt.Errorf("target %q: no host", raw)
	}
	trimmed := strings.TrimSuffix(u.Path, "/")
	return target{base: u, metricsOnly: strings.HasSuffix(trimmed, "/json") || strings.HasSuffix(trimmed, "/prometheus")}, nil
}

// fileSDGroup is one entry of a Prometheus file_sd file (JSON or YAML).
type fileSDGroup struct {
	Targets []string          `yaml:"targets"`
	Labels  map[string]string `yaml:"labels"`
}

// targetSet is the static --spark.url targets plus those of
// --spark.targets-file, re-read whenever the file's modification time or
// size changes. A file that fails to parse keeps the previous list.
type targetSet struct {
	static []target
	file   string
	logger *slog.Logger

	mu       sync.Mutex
	modTime  time.Time
	size     int64
	fromFile []target
	fileOK   bool
}

func newTargetSet(urls []string, file string, logger *slog.Logger) (*targetSet, error) {
	ts := &targetSet{file: file, logger: logger, fileOK: true}
	for _, raw := range urls {
		t, err := parseTarget(raw, "http", "")
		if err != nil {
			return nil, fmt.Errorf("--spark.url: %w", err)
		}
		ts.static = append(ts.static, t)
	}
	return ts, nil
}

// current returns the targets to read now, deduplicated by name and sorted.
func (ts *targetSet) current() []target {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.file != "" {
		ts.reloadLocked()
	}
	seen := map[string]bool{}
	var out []target
	for _, t := range slices.Concat(ts.static, ts.fromFile) {
		if !seen[t.name()] {
			seen[t.name()] = true
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b target) int { return strings.Compare(a.name(), b.name()) })
	return out
}

// fileHealthy reports whether the last load of the targets file worked.
func (ts *targetSet) fileHealthy() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.fileOK
}

func (ts *targetSet) reloadLocked() {
	info, err := os.Stat(ts.file)
	if err != nil {
		if ts.fileOK {
			ts.logger.Error("cannot read --spark.targets-file; keeping the previous targets", "file", ts.file, "err", err)
		}
		ts.fileOK = false
		return
	}
	if ts.fileOK && info.ModTime().Equal(ts.modTime) && info.Size() == ts.size {
		return
	}
	targets, err := loadFileSD(ts.file)
	ts.modTime, ts.size = info.ModTime(), info.Size()
	if err != nil {
		ts.logger.Error("bad --spark.targets-file; keeping the previous targets", "file", ts.file, "err", err)
		ts.fileOK = false
		return
	}
	ts.fileOK = true
	ts.fromFile = targets
	ts.logger.Info("loaded Spark targets", "file", ts.file, "targets", len(targets))
}

// loadFileSD parses a file_sd file. Labels __scheme__ and __metrics_path__
// set the scheme and the path under the host (a History Server behind a
// prefix, a YARN proxy); other labels are ignored (set them with
// relabelling in Prometheus).
func loadFileSD(path string) ([]target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var groups []fileSDGroup
	if err := yaml.UnmarshalStrict(data, &groups); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []target
	for i, g := range groups {
		scheme := g.Labels["__scheme__"]
		if scheme == "" {
			scheme = "http"
		}
		for _, raw := range g.Targets {
			t, err := parseTarget(raw, scheme, g.Labels["__metrics_path__"])
			if err != nil {
				return nil, fmt.Errorf("%s: group %d: %w", path, i, err)
			}
			out = append(out, t)
		}
	}
	return out, nil
}
