package sparklog

import (
	"fmt"
	"path/filepath"
	"testing"
)

// manyMemberZip writes a zip of n tiny logs (two events each), as a History
// Server export of many applications is.
func manyMemberZip(t testing.TB, n int) string {
	t.Helper()
	members := make(map[string][]byte, n)
	for i := range n {
		members[fmt.Sprintf("app-%05d", i)] = fmt.Appendf(nil,
			`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}`+"\n"+
				`{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-%05d","Timestamp":1700000000000,"User":"u"}`+"\n", i)
	}
	path := filepath.Join(t.TempDir(), "export.zip")
	writeZip(t, path, members)
	return path
}

// readAll reads every log and returns the events and problems seen.
func readAll(t testing.TB, logs []Log) (events, problems int64) {
	t.Helper()
	for _, l := range logs {
		st, err := Read(l, HandlerFuncs{}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", l.Key, err)
		}
		events += st.Events
		problems += st.Problems
	}
	return events, problems
}

// TestZipOfManyMembersReadsCompletely: a zip of 2,000 logs is read whole,
// its central directory read once, not once per member (which made the
// read of 20,000 members quadratic: hours instead of seconds). Counting
// the reads of the directory catches that at any size, so the zip is
// kept small; BenchmarkZipManyMembers times 20,000.
func TestZipOfManyMembersReadsCompletely(t *testing.T) {
	const n = 2000
	path := manyMemberZip(t, n)
	indexes := zipIndexes.Load()
	logs, err := Discover(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != n {
		t.Fatalf("%d logs, want %d", len(logs), n)
	}
	events, problems := readAll(t, logs)
	if events != 2*n || problems != 0 {
		t.Fatalf("%d events and %d problems, want %d and 0", events, problems, 2*n)
	}
	if got := zipIndexes.Load() - indexes; got != 1 {
		t.Errorf("the central directory was read %d times for %d members, want once", got, n)
	}
}

// BenchmarkZipManyMembers discovers and reads a zip of 20,000 tiny logs.
func BenchmarkZipManyMembers(b *testing.B) {
	const n = 20000
	path := manyMemberZip(b, n)
	for b.Loop() {
		logs, err := Discover(path)
		if err != nil {
			b.Fatal(err)
		}
		if events, _ := readAll(b, logs); events != 2*n {
			b.Fatalf("%d events", events)
		}
	}
}
