package sparklog

import (
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// A live single-file log that the connector rewrites whole with the same
// size but a new ETag (its cut last line completed in place) is read again
// from its last complete line: the completed event is delivered once,
// nothing before it twice; an unchanged object is not downloaded again.
func TestS3SameSizeRewriteReadAgainOnNewETag(t *testing.T) {
	testSameSizeRewriteReadAgain(t, objstoretest.StartS3(t))
}

// The same on Google Cloud Storage.
func TestGCSSameSizeRewriteReadAgainOnNewETag(t *testing.T) {
	testSameSizeRewriteReadAgain(t, objstoretest.StartGCS(t))
}

// The same on Azure Blob Storage (Azurite).
func TestAzureSameSizeRewriteReadAgainOnNewETag(t *testing.T) {
	testSameSizeRewriteReadAgain(t, objstoretest.StartAzurite(t))
}

func testSameSizeRewriteReadAgain(t *testing.T, store objstoretest.Store) {
	const key = "single/app-1.inprogress"
	first := `{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}` + "\n"
	second := `{"Event":"SparkListenerLogStart","Spark Version":"3.5.2"}` + "\n"
	// The version the follower sees first ends in the second line cut
	// before its newline, padded to the same size.
	cut := second[:len(second)-2] + "  "
	if len(cut) != len(second) {
		t.Fatal("the cut line must keep the size")
	}
	store.Put(t, key, []byte(first+cut))
	logs, err := DiscoverGiven(store.URL("single"))
	if err != nil || len(logs) != 1 || !logs[0].InProgress || logs[0].Layout != LayoutFile {
		t.Fatalf("%+v %v", logs, err)
	}
	var versions []string
	var problems []Problem
	fo := NewFollower(logs[0], HandlerFuncs{
		OnEvent: func(_ Position, ev sparkevent.Event) error {
			if ls, ok := ev.(*sparkevent.LogStart); ok {
				versions = append(versions, ls.SparkVersion)
			}
			return nil
		},
		OnProblem: func(p Problem) { problems = append(problems, p) },
	}, Options{})
	poll := func(what string, wantEvents, wantGets int64) {
		t.Helper()
		gets := requestCount(objstore.OpGet, objstore.ResultOK)
		res, err := fo.Poll()
		if err != nil || res.Events != wantEvents || res.Rewritten != "" {
			t.Fatalf("%s: %+v, %v; want %d events", what, res, err, wantEvents)
		}
		if got := requestCount(objstore.OpGet, objstore.ResultOK) - gets; got != wantGets {
			t.Errorf("%s: %d reads, want %d", what, got, wantGets)
		}
	}
	poll("first version", 1, 1)
	poll("unchanged", 0, 0)
	store.Put(t, key, []byte(first+second))
	poll("same size, new ETag", 1, 1)
	poll("unchanged again", 0, 0)
	if strings.Join(versions, ",") != "3.5.1,3.5.2" {
		t.Errorf("events %v, want 3.5.1 then 3.5.2, each once", versions)
	}
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
}
