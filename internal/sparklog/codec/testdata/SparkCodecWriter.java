// SparkCodecWriter writes a Spark-style event log through the same Java
// codec libraries, configured the way Spark configures them, so the Go
// decoders can be checked against the real byte formats.
//
// Usage: java SparkCodecWriter <codecs> <input log> <output prefix> <repeat> [<stop after N lines>]
//
// codecs: comma-separated, from plain, lz4, lz4-syncflush, snappy, lzf, zstd, gzip.
// For each codec it writes <output prefix>-<codec>: the input log's lines,
// <repeat> times, each followed by '\n', flushing after the events Spark's
// EventLoggingListener flushes on. With <stop after N lines> it stops after
// N lines without closing the streams and the JVM halts, leaving
// in-progress files. Per codec it prints "<codec> written=W flushed=F":
// bytes written in total and up to the last flush.
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.ning.compress.lzf.LZFOutputStream;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4BlockOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.SnappyOutputStream;

public final class SparkCodecWriter {
  // Spark's defaults: spark.io.compression.{lz4,snappy}.blockSize = 32k,
  // spark.io.compression.zstd.bufferSize = 32k, zstd level 1,
  // spark.eventLog.buffer.kb = 100k.
  private static final int BLOCK_SIZE = 32 * 1024;
  private static final int EVENT_LOG_BUFFER = 100 * 1024;

  // Events after which EventLoggingListener flushes.
  private static final Set<String> FLUSHING = Set.of(
      "SparkListenerStageCompleted", "SparkListenerJobStart", "SparkListenerJobEnd",
      "SparkListenerBlockManagerAdded", "SparkListenerBlockManagerRemoved",
      "SparkListenerUnpersistRDD", "SparkListenerApplicationStart", "SparkListenerApplicationEnd",
      "SparkListenerExecutorAdded", "SparkListenerExecutorRemoved");
  private static final Pattern EVENT = Pattern.compile("^\\{\"Event\":\"([^\"]+)\"");

  private static OutputStream codecStream(String codec, OutputStream out) throws IOException {
    switch (codec) {
      case "plain":
        return out;
      case "lz4": // LZ4CompressionCodec: syncFlush = false
      case "lz4-syncflush":
        return new LZ4BlockOutputStream(out, BLOCK_SIZE, LZ4Factory.fastestInstance().fastCompressor(),
            XXHashFactory.fastestInstance().newStreamingHash32(0x9747B28C).asChecksum(),
            codec.equals("lz4-syncflush"));
      case "snappy":
        return new SnappyOutputStream(out, BLOCK_SIZE);
      case "lzf":
        return new LZFOutputStream(out).setFinishBlockOnFlush(true);
      case "zstd": // ZStandardCompressionCodec.compressedContinuousOutputStream
        return new BufferedOutputStream(
            new ZstdOutputStreamNoFinalizer(out).setLevel(1).setCloseFrameOnFlush(true), BLOCK_SIZE);
      case "gzip":
        return new GZIPOutputStream(out, BLOCK_SIZE, true);
      default:
        throw new IllegalArgumentException("unknown codec " + codec);
    }
  }

  private static boolean flushes(String line) {
    Matcher m = EVENT.matcher(line);
    return m.find() && FLUSHING.contains(m.group(1));
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 4) {
      System.err.println("usage: SparkCodecWriter <codecs> <input> <output prefix> <repeat> [<stop after N lines>]");
      System.exit(2);
    }
    List<String> lines = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
    int repeat = Integer.parseInt(args[3]);
    long stopAfter = args.length > 4 ? Long.parseLong(args[4]) : -1;
    for (String codec : args[0].split(",")) {
      write(codec, lines, args[2] + "-" + codec, repeat, stopAfter);
    }
    System.out.flush();
    if (stopAfter >= 0) {
      Runtime.getRuntime().halt(0); // a live application: streams never closed
    }
  }

  private static void write(String codec, List<String> lines, String dst, int repeat, long stopAfter)
      throws IOException {
    OutputStream file = new FileOutputStream(dst);
    // EventLogFileWriter: codec stream, then a BufferedOutputStream, then a UTF-8 PrintWriter.
    PrintWriter w = new PrintWriter(new OutputStreamWriter(
        new BufferedOutputStream(codecStream(codec, file), EVENT_LOG_BUFFER), StandardCharsets.UTF_8));
    long written = 0, flushed = 0, count = 0;
    outer:
    for (int r = 0; r < repeat; r++) {
      for (String line : lines) {
        if (count == stopAfter) {
          break outer;
        }
        w.print(line);
        w.print('\n');
        written += line.getBytes(StandardCharsets.UTF_8).length + 1;
        count++;
        if (flushes(line)) {
          w.flush();
          flushed = written;
        }
      }
    }
    System.out.println(codec + " written=" + written + " flushed=" + flushed);
    if (stopAfter < 0) {
      w.close();
    }
  }
}
