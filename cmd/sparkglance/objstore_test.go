package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// analyze --json of the shared logs uploaded to S3 (and of a rolling
// directory among the extra ones) is the same as from local disk, the
// location aside; s3a:// names the same logs.
func TestAnalyzeS3SameAsLocalDisk(t *testing.T) {
	testAnalyzeStoreSameAsLocalDisk(t, objstoretest.StartS3(t), "s3", "s3a")
}

// The same on Google Cloud Storage (fake-gcs-server, through the real
// client), the rolling directory too.
func TestAnalyzeGCSSameAsLocalDisk(t *testing.T) {
	testAnalyzeStoreSameAsLocalDisk(t, objstoretest.StartGCS(t), "gs", "gs")
}

// The same on Azure Blob Storage (Azurite): the whole tree named
// azblob://, the rolling directory in Hadoop's wasb:// and abfs:// forms.
func TestAnalyzeAzureSameAsLocalDisk(t *testing.T) {
	testAnalyzeStoreSameAsLocalDisk(t, objstoretest.StartAzurite(t), "azblob", "wasb", "abfs")
}

// schemedStore names a location with any of the store's schemes.
type schemedStore interface {
	objstoretest.Store
	URLScheme(scheme, prefix string) string
}

// testAnalyzeStoreSameAsLocalDisk compares analyze --json of the shared
// tree named with the first scheme, and of a rolling directory named with
// each of the others, with the local disk's.
func testAnalyzeStoreSameAsLocalDisk(t *testing.T, store schemedStore, treeScheme string, rollingSchemes ...string) {
	root := testkit.Events(t)
	rolling := filepath.Join(root, "extra/spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964")
	objstoretest.UploadDir(t, store, root, "spark-events")
	cases := []struct{ local, prefix, scheme string }{{root, "spark-events", treeScheme}}
	for _, scheme := range rollingSchemes {
		cases = append(cases, struct{ local, prefix, scheme string }{rolling, "spark-events/extra/spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964", scheme})
	}
	for _, tc := range cases {
		// The README beside the logs is reported unreadable on both.
		want, wantStderr, wantErr := runAnalyzeStderr(t, "--json", tc.local)
		location := store.URLScheme(tc.scheme, tc.prefix)
		got, gotStderr, gotErr := runAnalyzeStderr(t, "--json", location)
		base, _, _ := strings.Cut(location, "?") // how the logs are named: the options aside
		if exitStatus(gotErr) != exitStatus(wantErr) || strings.Count(gotStderr, "\n") != strings.Count(wantStderr, "\n") {
			t.Errorf("%s: exit %v, stderr:\n%s\nwant exit %v, stderr:\n%s", base, gotErr, gotStderr, wantErr, wantStderr)
		}
		if got = strings.ReplaceAll(got, base, tc.local); got != want {
			t.Errorf("%s: analyze --json differs from the local disk's (%d and %d bytes)", base, len(got), len(want))
		}
		if !strings.Contains(want, `"appId"`) {
			t.Fatalf("%s: no application analysed", tc.local)
		}
		if tc.prefix == "spark-events" && strings.Count(want, `"appId"`) < 18 {
			t.Errorf("%s: %d applications analysed, want the 18 logs at least", tc.local, strings.Count(want, `"appId"`))
		}
	}
}
