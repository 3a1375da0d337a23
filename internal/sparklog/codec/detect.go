package codec

import (
	"bytes"
	"fmt"
	"strings"
)

// FromName returns the codec a Spark event-log file name implies, following
// Spark's own rule: strip ".compact", then ".inprogress", then take the text
// after the last '.'. Spark sanitises application ids so they contain no '.',
// which makes a name without '.' a plain log. A directory part is ignored.
func FromName(name string) (Codec, error) {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, ".compact")
	name = strings.TrimSuffix(name, ".inprogress")
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return Plain, nil
	}
	switch ext := name[i+1:]; ext {
	case "zstd", "zst":
		return Zstd, nil
	case "lz4":
		return LZ4, nil
	case "snappy":
		return Snappy, nil
	case "lzf":
		return LZF, nil
	case "gz":
		return Gzip, nil
	default:
		return "", fmt.Errorf("unknown codec extension %q", "."+ext)
	}
}

var (
	zstdMagic   = []byte{0x28, 0xB5, 0x2F, 0xFD}
	lz4Magic    = []byte("LZ4Block")
	snappyMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}
	lzfMagic    = []byte("ZV")
	gzipMagic   = []byte{0x1F, 0x8B}
	utf8BOM     = []byte{0xEF, 0xBB, 0xBF}
)

// Sniff returns the codec whose magic bytes head starts with. A head shorter
// than a magic that is a prefix of it also matches, so a live file holding
// only its first bytes is still recognised. ok is false for empty or
// unrecognised input.
func Sniff(head []byte) (c Codec, ok bool) {
	if len(head) == 0 {
		return "", false
	}
	switch {
	case startsLike(head, lzfMagic) && (len(head) < 3 || head[2] <= lzfCompressed):
		// Before the zstd skippable magic: 'Z' is also 0x5A.
		return LZF, true
	case startsLike(head, zstdMagic), isSkippableMagic(head):
		return Zstd, true
	case startsLike(head, lz4Magic):
		return LZ4, true
	case startsLike(head, snappyMagic):
		return Snappy, true
	case startsLike(head, gzipMagic):
		return Gzip, true
	case head[0] == '{', head[0] == ' ', head[0] == '\t', head[0] == '\r', head[0] == '\n', startsLike(head, utf8BOM):
		return Plain, true
	}
	return "", false
}

// Detect returns the codec a file's name implies after checking it against
// the file's first bytes. An empty head (an empty, not yet written live log)
// is accepted as whatever the name says.
func Detect(name string, head []byte) (Codec, error) {
	byName, err := FromName(name)
	if err != nil {
		return "", err
	}
	if len(head) == 0 {
		return byName, nil
	}
	byContent, ok := Sniff(head)
	if !ok {
		return "", fmt.Errorf("name says %s but the content matches no known format", byName)
	}
	if byContent != byName {
		return "", fmt.Errorf("name says %s but content starts like %s", byName, byContent)
	}
	return byName, nil
}

// startsLike reports whether head starts with magic, or is a non-empty
// prefix of it.
func startsLike(head, magic []byte) bool {
	if len(head) < len(magic) {
		return bytes.HasPrefix(magic, head)
	}
	return bytes.HasPrefix(head, magic)
}

// isSkippableMagic matches a zstd skippable frame: magic 0x184D2A5? (LE).
func isSkippableMagic(head []byte) bool {
	if head[0]&0xF0 != 0x50 {
		return false
	}
	return startsLike(head[1:], []byte{0x2A, 0x4D, 0x18})
}
