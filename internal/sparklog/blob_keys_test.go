package sparklog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// A key with newline and tab, as an application could name its log.
const oddKey = "logs/app\n\tnewline-and-tab"

// One key with U+0001 under the prefix does not break the listing of the
// others: S3 writes it as &#x1;, which no XML parser takes, unless the
// listing is asked URL-encoded.
func TestS3KeyWithControlCharacterKeepsListing(t *testing.T) {
	testControlCharacterKeepsListing(t, objstoretest.StartS3(t))
}

func TestGCSKeyWithControlCharacterKeepsListing(t *testing.T) {
	testControlCharacterKeepsListing(t, objstoretest.StartGCS(t))
}

// Not on Azure: Azurite 3.37 answers 500 to a listing of such a key
// (Azure marks and URL-encodes it, Encoded="true", which its SDK decodes).

func testControlCharacterKeepsListing(t *testing.T, store objstoretest.Store) {
	store.Put(t, "logs/app-1", []byte("{}\n"))
	store.Put(t, "logs/bad\x01key", []byte("{}\n"))
	store.Put(t, "logs/app 2+3%41__0x41__", []byte("{}\n")) // what URL decoding or gocloud's un-escaping would change
	logs, err := DiscoverGiven(store.URL("logs"))
	if err != nil {
		t.Fatalf("listing: %v", err)
	}
	want := []string{store.Ref("logs/app 2+3%41__0x41__"), store.Ref("logs/app-1"), store.Ref("logs/bad\x01key")}
	if got := keysOf(logs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listed %q, want %q", got, want)
	}
}

// An S3-compatible store that ignores encoding-type sends keys as they
// are: they are not URL-decoded then.
func TestS3ListingNotEncodedKeepsKeys(t *testing.T) {
	store := objstoretest.StartS3(t)
	store.IgnoreEncodingType(true)
	store.Put(t, "logs/app 2+3%41", []byte("{}\n"))
	logs, err := DiscoverGiven(store.URL("logs"))
	if err != nil || fmt.Sprint(keysOf(logs)) != fmt.Sprint([]string{store.Ref("logs/app 2+3%41")}) {
		t.Errorf("listed %q, %v", keysOf(logs), err)
	}
}

// A log whose key holds a newline and a tab is listed, stat'ed and read
// (gocloud's escaping of keys would ask for "app__0xa____0x9__…").
func TestS3KeyWithNewlineAndTabIsRead(t *testing.T) {
	testNewlineAndTabIsRead(t, objstoretest.StartS3(t))
}

func TestGCSKeyWithNewlineAndTabIsRead(t *testing.T) {
	testNewlineAndTabIsRead(t, objstoretest.StartGCS(t))
}

func TestAzureKeyWithNewlineAndTabIsRead(t *testing.T) {
	testNewlineAndTabIsRead(t, objstoretest.StartAzurite(t))
}

func testNewlineAndTabIsRead(t *testing.T, store objstoretest.Store) {
	data, err := os.ReadFile(testkit.Events(t, "local-1422981780767"))
	if err != nil {
		t.Fatal(err)
	}
	want := int64(strings.Count(string(data), "\n"))
	store.Put(t, oddKey, data)
	logs, err := DiscoverGiven(store.URL("logs"))
	if err != nil || len(logs) != 1 || logs[0].Key != store.Ref(oddKey) || logs[0].Files[0].Size != int64(len(data)) {
		t.Fatalf("listed %+v, %v", logs, err)
	}
	st, err := Read(logs[0], HandlerFuncs{}, Options{})
	if err != nil || st.Events != want || st.BytesIn != int64(len(data)) || !st.Finished {
		t.Errorf("read %+v, %v; want %d events", st, err, want)
	}
	if fi, err := statPath(store.Ref(oddKey)); err != nil || fi.Size() != int64(len(data)) {
		t.Errorf("stat %v, %v", fi, err)
	}
	// From an offset, as a follower reads on.
	r, err := objstore.Open(t.Context(), store.Ref(oddKey), 10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != string(data[10:]) {
		t.Errorf("read from 10: %d bytes, %v; want %d", len(rest), err, len(data)-10)
	}
}

// Messages name such an object quoted: a stat error, a problem, a
// location that cannot be a URL.
func TestS3MessagesQuoteKeys(t *testing.T) {
	testMessagesQuoteKeys(t, objstoretest.StartS3(t))
}

func TestGCSMessagesQuoteKeys(t *testing.T) {
	testMessagesQuoteKeys(t, objstoretest.StartGCS(t))
}

func TestAzureMessagesQuoteKeys(t *testing.T) {
	testMessagesQuoteKeys(t, objstoretest.StartAzurite(t))
}

func testMessagesQuoteKeys(t *testing.T, store objstoretest.Store) {
	if _, err := DiscoverGiven(store.URL("logs")); err != nil { // opens the bucket at the fake's address
		t.Fatal(err)
	}
	_, statErr := statPath(store.Ref(oddKey))
	if !errors.Is(statErr, fs.ErrNotExist) {
		t.Fatalf("stat of a missing object: %v, want fs.ErrNotExist", statErr)
	}
	p := Problem{File: store.Ref(oddKey), Kind: "unreadable", Reason: "gone"}
	_, urlErr := DiscoverGiven(store.URL(oddKey)) // a URL cannot hold a raw newline
	bucket := `"` + store.Ref("")
	for _, msg := range []string{fmt.Sprint(statErr), p.String(), fmt.Sprint(urlErr)} {
		// (Azure's SDK errors are several lines long: only the name counts.)
		if strings.Contains(msg, "app\n\t") || !strings.Contains(msg, bucket) || !strings.Contains(msg, `app\n\tnewline-and-tab`) {
			t.Errorf("message %q: want the name quoted, without a raw newline or tab", msg)
		}
	}
}

func keysOf(logs []Log) []string {
	var out []string
	for _, l := range logs {
		out = append(out, l.Key)
	}
	return out
}
