package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestAnalyzeParallelMatchesSequential runs `analyze --json` over every
// directory of real logs in ../shared (the main set, extra/ with its
// compressed, rolling, Databricks and zip logs, nds_q72 and nds_q88) twice:
// with GOMAXPROCS=1, where every line is decoded on the reading goroutine,
// and with GOMAXPROCS=4, where big finished logs are decoded on four
// workers. Output, messages and exit status must be byte-identical.
func TestAnalyzeParallelMatchesSequential(t *testing.T) {
	root := testkit.Events(t)
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("%d directories under %s; expected the main set and extra/", len(dirs), root)
	}
	bin := binary(t)
	run := func(procs, dir string) (stdout, stderr []byte, status int) {
		cmd := exec.Command(bin, "analyze", "--json", dir)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatal(err)
		}
		return out.Bytes(), errOut.Bytes(), cmd.ProcessState.ExitCode()
	}
	read := 0
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		seqOut, seqErr, seqStatus := run("1", dir)
		parOut, parErr, parStatus := run("4", dir)
		if !bytes.Equal(seqOut, parOut) {
			t.Errorf("%s: the JSON differs between GOMAXPROCS=1 (%d bytes) and 4 (%d bytes)", rel, len(seqOut), len(parOut))
		}
		if !bytes.Equal(seqErr, parErr) || seqStatus != parStatus {
			t.Errorf("%s: stderr or status differ:\nGOMAXPROCS=1 (%d): %s\nGOMAXPROCS=4 (%d): %s", rel, seqStatus, seqErr, parStatus, parErr)
		}
		if seqStatus != exitNothingRead {
			read++
		}
	}
	if read < 10 {
		t.Errorf("only %d directories held readable logs", read)
	}
}
