package eventlog

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// Sharding splits the applications of one event-log directory between
// processes the kube-state-metrics way: every process lists the whole
// directory, but follows (opens and reads) only the logs of the
// applications whose id hashes to its shard. All attempts of an
// application hash alike, so the attempt the collector exports
// (latestAttempts) is chosen on one shard, and the shards together follow
// every application exactly once. No coordinator: a StatefulSet's ordinal
// (--eventlog.shard-from-hostname) or a flag per process is enough.

// ShardConfig says which applications a process follows.
type ShardConfig struct {
	Shard, Total int // this process's shard, of Total; 0 of 1 follows everything
	// FromHostname takes Shard from the trailing "-<n>" of the host name
	// (a StatefulSet pod's ordinal) instead of Shard.
	FromHostname bool
}

// validate checks the shard against the total.
func (s ShardConfig) validate() error {
	if s.Total < 1 {
		return fmt.Errorf("--eventlog.total-shards %d must be at least 1", s.Total)
	}
	if s.Shard < 0 || s.Shard >= s.Total {
		return fmt.Errorf("--eventlog.shard %d must be in [0, %d) for --eventlog.total-shards %d", s.Shard, s.Total, s.Total)
	}
	return nil
}

// resolve returns s with Shard taken from hostname when FromHostname asks
// for it.
func (s ShardConfig) resolve(hostname string) (ShardConfig, error) {
	if !s.FromHostname {
		return s, s.validate()
	}
	m := ordinalSuffix.FindStringSubmatch(hostname)
	if m == nil {
		return s, fmt.Errorf("--eventlog.shard-from-hostname: host name %q does not end in -<ordinal> (a StatefulSet pod's name does)", hostname)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return s, fmt.Errorf("--eventlog.shard-from-hostname: host name %q does not end in -<ordinal> (a StatefulSet pod's name does)", hostname)
	}
	s.Shard = n
	if err := s.validate(); err != nil {
		return s, fmt.Errorf("--eventlog.shard-from-hostname: host name %q: %w", hostname, err)
	}
	return s, nil
}

// owns reports whether the application of log l belongs to this shard.
func (s ShardConfig) owns(l sparklog.Log) bool {
	return s.Total <= 1 || ShardOf(AppIDFromLogName(l), s.Total) == s.Shard
}

// owned keeps the logs of logs that belong to this shard.
func (s ShardConfig) owned(logs []sparklog.Log) []sparklog.Log {
	if s.Total <= 1 {
		return logs
	}
	out := logs[:0:0]
	for _, l := range logs {
		if s.owns(l) {
			out = append(out, l)
		}
	}
	return out
}

// ShardOf is the shard of the application appID among total: FNV-1a 64 of
// the id's bytes, modulo total. It is part of the documented contract
// (docs/scaling.md): changing it moves applications between shards.
func ShardOf(appID string, total int) int {
	if total <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(appID))
	return int(h.Sum64() % uint64(total))
}

// ordinalSuffix is a StatefulSet pod's ordinal at the end of its name.
var ordinalSuffix = regexp.MustCompile(`-([0-9]{1,9})$`)

// yarnAppIDEnd is the length of the YARN application id
// (application_<ts>_<n>) name starts with, 0 when it starts with none;
// what follows it is the attempt. Hand-written: a scan of a directory of
// 10,000 logs takes each name through here.
func yarnAppIDEnd(name string) int {
	const prefix = "application_"
	if !strings.HasPrefix(name, prefix) {
		return 0
	}
	end := digitsFrom(name, len(prefix))
	if end == len(prefix) || end >= len(name) || name[end] != '_' {
		return 0
	}
	n := digitsFrom(name, end+1)
	if n == end+1 {
		return 0
	}
	return n
}

// digitsFrom is the index after the ASCII digits of s from i on.
func digitsFrom(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// attemptStart is the index of the "_<digits>" attempt Spark appends to
// the application id in a log's name (EventLogFileWriter.nameForAppAndAttempt),
// -1 when the name does not end in one.
func attemptStart(name string) int {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || i < 2 || name[i-1] != '_' {
		return -1
	}
	return i - 1
}

// nameSuffixes are stripped from a log's name before its application id
// is taken: the in-progress mark and the codecs Spark names files with.
var nameSuffixes = []string{".inprogress", ".zstd", ".zst", ".lz4", ".snappy", ".lzf", ".gz"}

// AppIDFromLogName is the application id a log's name shows, without
// opening it: Spark names a log <appId>[_<attempt>][.<codec>][.inprogress]
// and a rolling log's directory eventlog_v2_<appId>[_<attempt>] (the id
// sanitised, lower case). A YARN id (application_<ts>_<n>) ends where its
// pattern does; for other ids a trailing _<digits> is the attempt. A
// Databricks directory or a file named otherwise is keyed by its whole
// name, which keeps each log on one shard. The id in the log's own
// ApplicationStart event may differ (a renamed file): the name decides.
func AppIDFromLogName(l sparklog.Log) string {
	name := filepath.Base(l.Key)
	if i := strings.LastIndex(strings.ToLower(l.Key), ".zip!"); i >= 0 {
		name = filepath.Base(l.Key[i+len(".zip!"):]) // a zip member: "<zip>!<member>"
	}
	if l.Layout == sparklog.LayoutRolling {
		name = strings.TrimPrefix(name, "eventlog_v2_")
	}
	for trimmed := true; trimmed; {
		trimmed = false
		for _, s := range nameSuffixes {
			if strings.HasSuffix(name, s) && len(name) > len(s) {
				name, trimmed = strings.TrimSuffix(name, s), true
			}
		}
	}
	if n := yarnAppIDEnd(name); n > 0 {
		return name[:n]
	}
	if i := attemptStart(name); i > 0 {
		return name[:i]
	}
	return name
}

// resolveShard fills c.Shard.Shard from the host name when asked to.
func (c *Config) resolveShard(hostname func() (string, error)) error {
	if !c.Shard.FromHostname {
		return nil
	}
	h, err := hostname()
	if err != nil {
		return fmt.Errorf("--eventlog.shard-from-hostname: %w", err)
	}
	c.Shard, err = c.Shard.resolve(h)
	return err
}

// scaleMetrics are the shard's info and its backlog: logs followed that
// are not read to their end yet.
func (w *Watcher) scaleMetrics(tracked []*trackedApp) []prometheus.Metric {
	backlog := 0.0
	for _, a := range tracked {
		if !a.caught.Load() {
			backlog++
		}
	}
	s := w.cfg.Shard
	return []prometheus.Metric{
		prometheus.MustNewConstMetric(selfShardInfo.Desc(), gauge, 1, strconv.Itoa(s.Shard), strconv.Itoa(max(1, s.Total))),
		prometheus.MustNewConstMetric(selfBacklog.Desc(), gauge, backlog),
	}
}
