package codec

import (
	"strings"
	"testing"
)

func TestFromName(t *testing.T) {
	for name, want := range map[string]Codec{
		"local-1642039451826":                         Plain,
		"app-20240101_1.inprogress":                   Plain,
		"events_1_local-1623876083964.zstd":           Zstd,
		"/logs/eventlog_v2_x/events_5_x.zstd.compact": Zstd,
		"application_1_0001.lz4.inprogress":           LZ4,
		"application_1_0001_1.snappy":                 Snappy,
		"app.lzf":                                     LZF,
		"x.zst":                                       Zstd,
		"eventlog-2021-06-15--15-00.gz":               Gzip,
		"events_2_app.zstd.inprogress.compact":        Zstd, // .compact first, then .inprogress
	} {
		if got, err := FromName(name); err != nil || got != want {
			t.Errorf("FromName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	_, err := FromName("eventLogs-application_1489705648216_1600.zip")
	if err == nil || err.Error() != `unknown codec extension ".zip"` {
		t.Errorf("zip: %v", err)
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want Codec
		ok   bool
	}{
		{"\x28\xB5\x2F\xFD\x00", Zstd, true},
		{"\x50\x2A\x4D\x18\x04\x00\x00\x00", Zstd, true}, // skippable frame
		{"LZ4Block\x25", LZ4, true},
		{"LZ4", LZ4, true}, // a live file's first bytes
		{"\x82SNAPPY\x00\x00\x00\x00\x01", Snappy, true},
		{"ZV\x01\x00", LZF, true},
		{"Z", LZF, true},
		{"ZV\x02", "", false},
		{"\x1F\x8B\x08", Gzip, true},
		{`{"Event":"SparkListenerLogStart"}`, Plain, true},
		{"\n{", Plain, true},
		{"\xEF\xBB\xBF{", Plain, true},
		{"PK\x03\x04", "", false},
		{"", "", false},
		{"\x00\x01\x02", "", false},
	} {
		got, ok := Sniff([]byte(tc.head))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Sniff(%q) = %q, %v; want %q, %v", tc.head, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDetect(t *testing.T) {
	if c, err := Detect("app.zstd", []byte("\x28\xB5\x2F\xFD")); err != nil || c != Zstd {
		t.Errorf("zstd: %v %v", c, err)
	}
	if c, err := Detect("app.lz4.inprogress", nil); err != nil || c != LZ4 {
		t.Errorf("empty live file: %v %v", c, err)
	}
	_, err := Detect("app.zstd", []byte("\x1F\x8B\x08\x00"))
	if err == nil || err.Error() != "name says zstd but content starts like gzip" {
		t.Errorf("mismatch: %v", err)
	}
	_, err = Detect("local-1", []byte("LZ4Block"))
	if err == nil || err.Error() != "name says plain but content starts like lz4" {
		t.Errorf("plain name, lz4 content: %v", err)
	}
	_, err = Detect("app.snappy", []byte("\x00\x01\x02\x03"))
	if err == nil || !strings.Contains(err.Error(), "matches no known format") {
		t.Errorf("junk: %v", err)
	}
	if _, err = Detect("app.bz2", []byte("BZh")); err == nil {
		t.Error("unknown extension accepted")
	}
}
