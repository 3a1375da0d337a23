package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// demoPause separates two runs of the simulated application, so that the
// finished one is seen as finished before the next one starts.
const demoPause = 10 * time.Second

// prepareDemo creates the directory the simulator writes to and tells the
// event-log collector (its configuration cfg) to watch it, as if given with
// --eventlog.dir.
func prepareDemo(cfg *eventlog.Config) (string, error) {
	dir, err := os.MkdirTemp("", "sparkglance-demo-")
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	cfg.Dirs = append(cfg.Dirs, dir)
	return dir, nil
}

// runDemo writes the simulated application into dir in real time, again
// and again with a new application id, until ctx ends.
func runDemo(ctx context.Context, dir string, logger *slog.Logger) {
	for run := 1; ctx.Err() == nil; run++ {
		cfg := simulate.DefaultConfig()
		cfg.Start = time.Now()
		cfg.AppID = fmt.Sprintf("app-%s-%04d", cfg.Start.UTC().Format("20060102150405"), run)
		cfg.Seed = uint64(run)
		logger.Info("demo: simulated Spark application starts", "app_id", cfg.AppID, "dir", dir)
		path, err := simulate.Live(ctx, dir, cfg, simulate.LiveOptions{Codec: "zstd", Speed: 1})
		if err != nil && ctx.Err() == nil {
			logger.Error("demo: simulator failed", "err", err)
			return
		}
		logger.Info("demo: simulated Spark application ended", "app_id", cfg.AppID, "log", path)
		select {
		case <-ctx.Done():
		case <-time.After(demoPause):
		}
	}
}

// printDemoBanner tells a newcomer where to look.
func printDemoBanner(w io.Writer, dir, telemetryPath string, addrs []net.Addr) {
	fmt.Fprintf(w, "sparkglance demo: a simulated Spark application (8 executors × 4 cores, ~3 min, then again) is written to\n  %s\n", dir)
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a.String())
		if err != nil {
			continue
		}
		if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
			host = "localhost"
		}
		fmt.Fprintf(w, "metrics: http://%s%s  (try: curl -s http://%s%s | grep '^spark_')\n",
			net.JoinHostPort(host, port), telemetryPath, net.JoinHostPort(host, port), telemetryPath)
	}
}
