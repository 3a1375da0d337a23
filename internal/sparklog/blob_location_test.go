package sparklog

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

// Unsupported schemes are refused naming what is read and the mount way;
// local paths and file:// URLs are what they were.
func TestResolveLocation(t *testing.T) {
	_, err := ResolveLocation("hdfs://namenode:8020/spark-logs")
	for _, want := range []string{"hdfs://namenode:8020/spark-logs", "not supported", "s3a://", "gs://", "abfss://", "file://", "mount"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hdfs:// error %v lacks %q", err, want)
		}
	}
	for in, want := range map[string]string{"/a/b": "/a/b", "file:///a/b": "/a/b", "rel/dir": "rel/dir"} {
		if got, err := ResolveLocation(in); err != nil || got != want {
			t.Errorf("ResolveLocation(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	got, err := ResolveLocation("s3a://resolve-test/spark/?region=us-east-1")
	if err != nil || got != "s3a://resolve-test/spark" {
		t.Errorf("canonical form %q, %v", got, err)
	}
	if _, err := ResolveLocation("s3a://resolve-test/other?region=eu-west-1"); err == nil {
		t.Error("the same bucket with other options was accepted")
	}
	if !IsObjectURL("abfss://c@a.dfs.core.windows.net/x") || IsObjectURL("/tmp/s3://x") || IsObjectURL("C:/logs") {
		t.Error("IsObjectURL misjudges")
	}
}
