package codec

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// javaWriter runs testdata/SparkCodecWriter.java, which writes event logs
// through the Debian builds of the very libraries Spark uses.
type javaWriter struct {
	java, classpath string
}

var javaJars = []string{"lz4-java.jar", "snappy-java.jar", "compress-lzf.jar", "zstd-jni.jar"}

// newJavaWriter compiles the writer into a temporary directory.
func newJavaWriter(t testing.TB) *javaWriter {
	t.Helper()
	javac := testkit.RequireTool(t, "javac")
	java := testkit.RequireTool(t, "java")
	var cp []string
	for _, jar := range javaJars {
		cp = append(cp, testkit.RequireFile(t, filepath.Join("/usr/share/java", jar)))
	}
	classes := t.TempDir()
	cp = append([]string{classes}, cp...)
	w := &javaWriter{java: java, classpath: strings.Join(cp, string(os.PathListSeparator))}
	out, err := exec.Command(javac, "-d", classes, "-cp", w.classpath, filepath.Join("testdata", "SparkCodecWriter.java")).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return w
}

// javaResult is what the writer reports for one codec.
type javaResult struct{ written, flushed int64 }

// write produces <prefix>-<codec> for each codec from input repeated repeat
// times, in one JVM; stopAfter >= 0 halts it after that many lines without
// closing the streams. It returns, per codec, the bytes written in total
// and up to the last flush.
func (w *javaWriter) write(t testing.TB, codecs []string, input, prefix string, repeat, stopAfter int) map[string]javaResult {
	t.Helper()
	args := []string{"-cp", w.classpath, "SparkCodecWriter", strings.Join(codecs, ","), input, prefix, fmt.Sprint(repeat)}
	if stopAfter >= 0 {
		args = append(args, fmt.Sprint(stopAfter))
	}
	cmd := exec.Command(w.java, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java %v: %v\n%s", codecs, err, stderr.String())
	}
	results := map[string]javaResult{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var codec string
		var r javaResult
		if _, err := fmt.Sscanf(line, "%s written=%d flushed=%d", &codec, &r.written, &r.flushed); err != nil {
			t.Fatalf("java printed %q: %v", line, err)
		}
		results[codec] = r
	}
	if len(results) != len(codecs) {
		t.Fatalf("java reported %d codecs, want %d: %s", len(results), len(codecs), out)
	}
	return results
}

// javaCodecs maps the writer's codec names to ours and to a file suffix.
var javaCodecs = []struct {
	java   string
	codec  Codec
	suffix string
}{
	{"plain", Plain, ""},
	{"lz4", LZ4, ".lz4"},
	{"lz4-syncflush", LZ4, ".lz4"},
	{"snappy", Snappy, ".snappy"},
	{"lzf", LZF, ".lzf"},
	{"zstd", Zstd, ".zstd"},
	{"gzip", Gzip, ".gz"},
}

// javaFiles holds, per Java codec name, a closed and an in-progress log.
type javaFiles struct {
	input     string
	expected  []byte // the closed files' full content
	closed    map[string][]byte
	live      map[string][]byte
	liveWrote int64 // bytes the in-progress writer wrote…
	liveFlush int64 // …and had flushed when it halted
}

// sparkLog is a real 412 KB Spark 3.3 log; three copies make the closed
// files span dozens of 32 KiB blocks.
const (
	sparkLog    = "local-1642039451826"
	sparkRepeat = 3
)

// writeJavaFiles writes input through every codec, closed and, when live is
// set, in progress.
func writeJavaFiles(t *testing.T, w *javaWriter, input string, repeat int, live bool) *javaFiles {
	t.Helper()
	content, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(content, []byte("\r")) {
		t.Fatalf("%s: expected \\n line ends", input)
	}
	if !bytes.HasSuffix(content, []byte("\n")) {
		content = append(content, '\n') // the writer ends every line with \n
	}
	stop := liveStopLine(t, content, repeat)
	files := &javaFiles{input: input, expected: bytes.Repeat(content, repeat), closed: map[string][]byte{}, live: map[string][]byte{}}
	dir := t.TempDir()
	var names []string
	for _, jc := range javaCodecs {
		names = append(names, jc.java)
	}
	for codec, r := range w.write(t, names, input, filepath.Join(dir, "closed"), repeat, -1) {
		if r.written != int64(len(files.expected)) {
			t.Fatalf("%s: java wrote %d bytes, want %d", codec, r.written, len(files.expected))
		}
		files.closed[codec] = readFile(t, filepath.Join(dir, "closed-"+codec))
	}
	if live {
		for codec, r := range w.write(t, names, input, filepath.Join(dir, "live"), repeat, stop) {
			files.liveWrote, files.liveFlush = r.written, r.flushed
			files.live[codec] = readFile(t, filepath.Join(dir, "live-"+codec))
		}
	}
	if live && files.liveWrote-files.liveFlush < 1000 {
		t.Fatalf("in-progress files have only %d unflushed bytes", files.liveWrote-files.liveFlush)
	}
	return files
}

// liveStopLine picks where the in-progress writer halts: in the last copy,
// after the line that leaves the most bytes written since the last flush.
func liveStopLine(t *testing.T, content []byte, repeat int) int {
	t.Helper()
	lines := bytes.SplitAfter(content, []byte("\n"))
	lines = lines[:len(lines)-1] // SplitAfter leaves an empty tail
	best, bestUnflushed, unflushed := 0, 0, 0
	for i, line := range lines {
		unflushed += len(line)
		if isFlushingEvent(line) {
			unflushed = 0
		}
		if unflushed > bestUnflushed {
			best, bestUnflushed = i+1, unflushed
		}
	}
	if bestUnflushed == 0 {
		t.Fatal("every line flushes")
	}
	return (repeat-1)*len(lines) + best
}

func isFlushingEvent(line []byte) bool {
	for _, e := range []string{"StageCompleted", "JobStart", "JobEnd", "BlockManagerAdded", "BlockManagerRemoved",
		"UnpersistRDD", "ApplicationStart", "ApplicationEnd", "ExecutorAdded", "ExecutorRemoved"} {
		if bytes.HasPrefix(line, []byte(`{"Event":"SparkListener`+e+`"`)) {
			return true
		}
	}
	return false
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
