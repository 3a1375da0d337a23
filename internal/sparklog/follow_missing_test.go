package sparklog

import (
	"archive/zip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pollWithin fails the test when Poll does not return within d: a file that
// stays missing must be an error for this Poll, never a busy loop.
func pollWithin(t *testing.T, fo *Follower, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := fo.Poll()
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatal("Poll did not return")
		return nil
	}
}

func TestFollowDanglingRollingFileIsAnErrorNotALoop(t *testing.T) {
	d := filepath.Join(t.TempDir(), "eventlog_v2_app-1")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "appstatus_app-1.inprogress"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d, "gone"), filepath.Join(d, "events_1_app-1")); err != nil {
		t.Fatal(err)
	}
	logs, err := Discover(d)
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover: %v (%d logs)", err, len(logs))
	}
	fo := NewFollower(logs[0], HandlerFuncs{}, Options{})
	for range 2 { // and again at the next Poll
		if err := pollWithin(t, fo, 3*time.Second); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Poll: %v, want a not-exist error", err)
		}
	}
}

func TestFollowDeletedZipIsAnErrorNotALoop(t *testing.T) {
	zp := filepath.Join(t.TempDir(), "logs.zip")
	f, err := os.Create(zp)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("app-1.inprogress")
	w.Write([]byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}` + "\n"))
	zw.Close()
	f.Close()
	logs, err := Discover(zp)
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover: %v (%d logs)", err, len(logs))
	}
	fo := NewFollower(logs[0], HandlerFuncs{}, Options{})
	if err := pollWithin(t, fo, 3*time.Second); err != nil {
		t.Fatalf("first Poll: %v", err)
	}
	if st := fo.Stats(); st.Events != 1 {
		t.Fatalf("%d events before the deletion, want 1", st.Events)
	}
	os.Remove(zp)
	if err := pollWithin(t, fo, 3*time.Second); err == nil {
		t.Error("Poll after the zip was deleted: no error")
	}
	if st := fo.Stats(); st.Events != 1 {
		t.Errorf("%d events after the deletion, want the 1 read before", st.Events)
	}
}
