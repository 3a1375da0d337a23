package simulate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

func TestWriteProducesSparkShapedLines(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = 4, 2, 16
	var buf bytes.Buffer
	n, err := Write(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	lines := 0
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %v", lines, err)
		}
		typ, _ := ev["Event"].(string)
		counts[typ]++
		if typ != "SparkListenerTaskEnd" || ev["Task End Reason"].(map[string]any)["Reason"] != "Success" {
			continue // failed tasks of the retried stage carry no metrics
		}
		m := ev["Task Metrics"].(map[string]any)
		info := ev["Task Info"].(map[string]any)
		wall := info["Finish Time"].(float64) - info["Launch Time"].(float64)
		run := m["Executor Run Time"].(float64)
		cpuNs := m["Executor CPU Time"].(float64)
		if run > wall || run <= 0 {
			t.Errorf("line %d: run time %v ms outside task wall time %v ms", lines, run, wall)
		}
		if cpuNs > run*1e6 || cpuNs <= 0 {
			t.Errorf("line %d: CPU time %v ns must be in ns and below run time %v ms", lines, cpuNs, run)
		}
	}
	if lines != n {
		t.Errorf("Write reported %d lines, wrote %d", n, lines)
	}
	// Seven multi-task stages and one single-task stage per scenario pass,
	// and the failed attempt's tasks and the reruns of the retried stage.
	if counts["SparkListenerTaskEnd"] <= 7*16+1 || counts["SparkListenerTaskStart"] != counts["SparkListenerTaskEnd"] {
		t.Errorf("task events: %d starts, %d ends, want equal counts above %d", counts["SparkListenerTaskStart"], counts["SparkListenerTaskEnd"], 7*16+1)
	}
	for typ, want := range map[string]int{
		"SparkListenerLogStart": 1, "SparkListenerApplicationStart": 1, "SparkListenerApplicationEnd": 1,
		// Eight stages, two of them run twice (the retried one and its parent).
		"SparkListenerJobStart": 6, "SparkListenerJobEnd": 6, "SparkListenerStageSubmitted": 10, "SparkListenerStageCompleted": 10,
		"SparkListenerExecutorAdded": 4 + 2, "SparkListenerExecutorRemoved": 2,
	} {
		if counts[typ] != want {
			t.Errorf("%s: %d, want %d", typ, counts[typ], want)
		}
	}
}

func TestWriteIsDeterministicPerSeed(t *testing.T) {
	cfg := DefaultConfig()
	var a, b, c bytes.Buffer
	Write(&a, cfg)
	Write(&b, cfg)
	cfg.Seed++
	Write(&c, cfg)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed, different logs")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds, same log")
	}
}

func TestLiveWritesInProgressThenRenames(t *testing.T) {
	for _, codec := range []string{"plain", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = 2, 2, 8
			dir := t.TempDir()
			final, err := Live(context.Background(), dir, cfg, LiveOptions{Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(final + ".inprogress"); !os.IsNotExist(err) {
				t.Errorf("in-progress file still there after the end: %v", err)
			}
			data, err := os.ReadFile(final)
			if err != nil {
				t.Fatal(err)
			}
			if codec == "zstd" {
				if filepath.Ext(final) != ".zstd" {
					t.Errorf("final name %s lacks .zstd", final)
				}
				dec, _ := zstd.NewReader(nil)
				if data, err = dec.DecodeAll(data, nil); err != nil {
					t.Fatalf("zstd frames: %v", err)
				}
			}
			var want bytes.Buffer
			Write(&want, cfg)
			if !bytes.Equal(data, want.Bytes()) {
				t.Errorf("live log (%d bytes) differs from Write's (%d bytes)", len(data), want.Len())
			}
		})
	}
}

func TestLiveStopsWithContextAndLeavesInProgress(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Start = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	dir := t.TempDir()
	path, err := Live(ctx, dir, cfg, LiveOptions{Speed: 1})
	if err == nil {
		t.Fatal("a real-time run of a minutes-long application ended within 300ms")
	}
	if filepath.Ext(path) != ".inprogress" {
		t.Fatalf("path %s, want the .inprogress file", path)
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte(`{"Event":"SparkListenerLogStart"`)) || !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("in-progress file should hold whole flushed lines, got %q…", data[:min(len(data), 80)])
	}
}
