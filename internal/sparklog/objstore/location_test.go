package objstore

import (
	"strings"
	"testing"
)

// Hadoop's schemes map to gocloud's, the Azure account and endpoint taken
// from the host; the canonical form keeps the scheme as written.
func TestParseObjectLocation(t *testing.T) {
	for _, tc := range []struct{ in, base, open, key string }{
		{"s3a://logs/spark/events?region=eu-west-1", "s3a://logs", "s3://logs?region=eu-west-1", "spark/events"},
		{"s3://logs", "s3://logs", "s3://logs", ""},
		{"gs://bucket/x/", "gs://bucket", "gs://bucket", "x/"},
		{"abfss://events@acct.dfs.core.windows.net/spark", "abfss://events@acct.dfs.core.windows.net",
			"azblob://events?domain=blob.core.windows.net&storage_account=acct", "spark"},
		{"wasb://events@acct.blob.core.windows.net/spark", "wasb://events@acct.blob.core.windows.net",
			"azblob://events?domain=blob.core.windows.net&protocol=http&storage_account=acct", "spark"},
	} {
		loc, err := parseObjectLocation(tc.in)
		if err != nil || loc.base != tc.base || loc.open != tc.open || loc.key != tc.key {
			t.Errorf("%s: %+v, %v; want base %s open %s key %s", tc.in, loc, err, tc.base, tc.open, tc.key)
		}
	}
	for _, bad := range []string{"s3:///no-bucket", "abfss://no-account/path"} {
		if _, err := parseObjectLocation(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: error %v, want one naming it", bad, err)
		}
	}
}

// IsURL tells the stores' schemes from paths, Windows drive letters
// included.
func TestIsURL(t *testing.T) {
	if !IsURL("abfss://c@a.dfs.core.windows.net/x") || IsURL("/tmp/s3://x") || IsURL("C:/logs") {
		t.Error("IsURL misjudges")
	}
}
