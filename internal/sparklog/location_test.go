package sparklog

import (
	"strings"
	"testing"
)

func TestLocalPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/var/log/spark-events", "/var/log/spark-events"},
		{"relative/dir", "relative/dir"},
		{"app:1", "app:1"}, // a file name with a colon is not a URL
		{"C:/logs", "C:/logs"},
		{"file:///tmp/spark-events", "/tmp/spark-events"},
		{"file:/tmp/spark-events", "/tmp/spark-events"}, // Hadoop's short form
		{"file://localhost/tmp/x%20y", "/tmp/x y"},
	} {
		got, err := LocalPath(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("LocalPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"hdfs://namenode:8020/spark-logs", "hdfs:// scheme is not supported"},
		{"s3a://bucket/spark-events", "s3a:// scheme is not supported"},
		{"file://otherhost/tmp", `not host "otherhost"`},
	} {
		_, err := LocalPath(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.in) {
			t.Errorf("LocalPath(%q) error %v, want one naming the location and %q", tc.in, err, tc.want)
		}
	}
	_, err := LocalPath("hdfs://nn/logs")
	for _, want := range []string{"local paths", "file://", "mount"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
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
}
