package codec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// benchDecode measures decoding file; SetBytes counts decompressed bytes.
func benchDecode(b *testing.B, c Codec, file []byte) {
	r, err := NewReader(c, bytes.NewReader(file), Checkpoint{})
	if err != nil {
		b.Fatal(err)
	}
	size, err := io.Copy(io.Discard, r)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, _ := NewReader(c, bytes.NewReader(file), Checkpoint{})
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func readShared(b *testing.B, elem ...string) []byte {
	file, err := os.ReadFile(testkit.Events(b, elem...))
	if err != nil {
		b.Fatal(err)
	}
	return file
}

// javaEncoded writes the 412 KB real log three times through a Java codec.
func javaEncoded(b *testing.B, javaCodec string) []byte {
	w := newJavaWriter(b)
	prefix := filepath.Join(b.TempDir(), "log")
	w.write(b, []string{javaCodec}, testkit.Events(b, sparkLog), prefix, sparkRepeat, -1)
	file, err := os.ReadFile(prefix + "-" + javaCodec)
	if err != nil {
		b.Fatal(err)
	}
	return file
}

func BenchmarkDecodeZstd(b *testing.B) {
	benchDecode(b, Zstd, readShared(b, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q72_dataproc_2_2.zstd"))
}

func BenchmarkDecodeGzip(b *testing.B) {
	benchDecode(b, Gzip, readShared(b, "extra", "spark-rapids-tools", "spark-events-qualification", "db_sim_eventlog", "eventlog-2021-06-15--15-00.gz"))
}

func BenchmarkDecodePlain(b *testing.B) { benchDecode(b, Plain, readShared(b, sparkLog)) }

func BenchmarkDecodeLZ4(b *testing.B)    { benchDecode(b, LZ4, javaEncoded(b, "lz4")) }
func BenchmarkDecodeSnappy(b *testing.B) { benchDecode(b, Snappy, javaEncoded(b, "snappy")) }
func BenchmarkDecodeLZF(b *testing.B)    { benchDecode(b, LZF, javaEncoded(b, "lzf")) }
