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
	root := testkit.Events(t)
	rolling := filepath.Join(root, "extra/spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964")
	s3 := objstoretest.StartS3(t)
	objstoretest.UploadDir(t, s3, root, "spark-events")
	for _, tc := range []struct{ local, prefix, scheme string }{
		{root, "spark-events", "s3"},
		{rolling, "spark-events/extra/spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964", "s3a"},
	} {
		// The README beside the logs is reported unreadable on both.
		want, wantStderr, wantErr := runAnalyzeStderr(t, "--json", tc.local)
		got, gotStderr, gotErr := runAnalyzeStderr(t, "--json", s3.URLScheme(tc.scheme, tc.prefix))
		base := tc.scheme + "://" + s3.Bucket + "/" + tc.prefix
		if exitStatus(gotErr) != exitStatus(wantErr) || strings.Count(gotStderr, "\n") != strings.Count(wantStderr, "\n") {
			t.Errorf("%s: exit %v, stderr:\n%s\nwant exit %v, stderr:\n%s", base, gotErr, gotStderr, wantErr, wantStderr)
		}
		if got = strings.ReplaceAll(got, base, tc.local); got != want {
			t.Errorf("%s: analyze --json differs from the local disk's (%d and %d bytes)", base, len(got), len(want))
		}
		if !strings.Contains(want, `"appId"`) {
			t.Fatalf("%s: no application analysed", tc.local)
		}
	}
}
