package sparklog

import (
	"os"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// Each documented way of pointing sparkglance at Azurite (or at another
// endpoint than Azure's public one) reaches it: gocloud's URL options,
// gocloud's environment variables with a plain azblob:// location, and a
// connection string alone.
func TestAzureSettingsReachAzurite(t *testing.T) {
	data, err := os.ReadFile(testkit.Events(t, "local-1422981780767"))
	if err != nil {
		t.Fatal(err)
	}
	want := int64(strings.Count(string(data), "\n"))
	for _, tc := range []struct {
		name string
		// set prepares the environment and returns the location to give.
		set func(t *testing.T, a *objstoretest.Azure) string
	}{
		{"URL options", func(t *testing.T, a *objstoretest.Azure) string { return a.URL("logs") }},
		{"environment", func(t *testing.T, a *objstoretest.Azure) string {
			t.Setenv("AZURE_STORAGE_DOMAIN", strings.TrimPrefix(a.Endpoint, "http://"))
			t.Setenv("AZURE_STORAGE_PROTOCOL", "http")
			t.Setenv("AZURE_STORAGE_IS_LOCAL_EMULATOR", "true")
			return "azblob://" + a.Container + "/logs"
		}},
		{"connection string", func(t *testing.T, a *objstoretest.Azure) string {
			t.Setenv("AZURE_STORAGE_ACCOUNT", "")
			t.Setenv("AZURE_STORAGE_KEY", "")
			t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=http;AccountName="+objstoretest.AzuriteAccount+
				";AccountKey="+objstoretest.AzuriteKey+";BlobEndpoint="+a.Endpoint+"/"+objstoretest.AzuriteAccount+";")
			return "azblob://" + a.Container + "/logs"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := objstoretest.StartAzurite(t)
			a.Put(t, "logs/local-1422981780767", data)
			logs, err := DiscoverGiven(tc.set(t, a))
			if err != nil || len(logs) != 1 || logs[0].Key != a.Ref("logs/local-1422981780767") {
				t.Fatalf("discovered %+v, %v", logs, err)
			}
			st, err := Read(logs[0], HandlerFuncs{}, Options{})
			if err != nil || st.Events != want || !st.Finished {
				t.Errorf("read %+v, %v; want %d events", st, err, want)
			}
		})
	}
}
