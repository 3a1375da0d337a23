// Package codec decompresses Spark event-log files: plain JSON lines, zstd,
// lz4 (lz4-java block stream), snappy (xerial stream), lzf (ning chunks) and
// gzip. Every decoder can resume at a block boundary, so a growing
// (in-progress) file is followed without re-reading it, and reports damage
// with the compressed offset where it was found.
package codec

// Codec names a compression format by Spark's short name.
type Codec string

// The codecs Spark writes event logs with, plus gzip (Databricks rolled files).
const (
	Plain  Codec = "plain"
	Zstd   Codec = "zstd"
	LZ4    Codec = "lz4"
	Snappy Codec = "snappy"
	LZF    Codec = "lzf"
	Gzip   Codec = "gzip"
)
