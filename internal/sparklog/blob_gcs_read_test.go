package sparklog

import (
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// Each request is counted under its operation, whatever the object's name:
// an object named "o" has a path ending like a listing's.
func TestGCSRequestsCountedByOp(t *testing.T) {
	g := objstoretest.StartGCS(t)
	g.Put(t, "logs/o", []byte("{}\n"))
	counts := func() [3]int64 {
		return [3]int64{requestCount(objstore.OpList, objstore.ResultOK), requestCount(objstore.OpStat, objstore.ResultOK), requestCount(objstore.OpGet, objstore.ResultOK)}
	}
	before := counts()
	logs, err := DiscoverGiven(g.URL("logs"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("%+v, %v", logs, err)
	}
	afterList := counts()
	if _, err := objstore.Stat(g.Ref("logs/o")); err != nil {
		t.Fatal(err)
	}
	afterStat := counts()
	if st, err := Read(logs[0], HandlerFuncs{}, Options{}); err != nil || st.BytesIn != 3 {
		t.Fatalf("%+v, %v", st, err)
	}
	after := counts()
	// Discovering a prefix stats it as an object first (not found), then lists.
	if d := afterList[0] - before[0]; d != 1 {
		t.Errorf("discovering: %d listings counted, want 1", d)
	}
	if d := [3]int64{afterStat[0] - afterList[0], afterStat[1] - afterList[1], afterStat[2] - afterList[2]}; d != [3]int64{0, 1, 0} {
		t.Errorf("a stat of logs/o counted as %v (list, stat, get), want one stat", d)
	}
	if d := after[2] - afterStat[2]; d != 1 || after[0] != afterStat[0] {
		t.Errorf("reading logs/o: %d gets and %d listings, want 1 and 0", d, after[0]-afterStat[0])
	}
}
