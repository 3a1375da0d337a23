// Package eventtest holds what the tests of the decoder (sparkevent) and of
// the readers over it (sparklog) share: the shared real logs opened without
// the codec package, the biggest one decompressed once, and comparisons of
// decoded events. It works on events by reflection so that sparkevent's own
// tests can import it.
package eventtest

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The biggest shared log, relative to shared/spark-events.
const (
	BigLog      = "extra/spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd"
	BigLogBytes = 142361502 // decompressed size, from the data README
)

// LogReader opens a log under shared/spark-events, decompressing zstd and
// gzip directly (not through the codec package, to test the decoder alone).
func LogReader(t testing.TB, rel string) io.ReadCloser {
	t.Helper()
	f, err := os.Open(testkit.Events(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case strings.HasSuffix(rel, ".zstd"):
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		return closers{zr.IOReadCloser(), f}
	case strings.HasSuffix(rel, ".gz"):
		gr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		return closers{gr, f}
	}
	return f
}

type closers struct {
	io.ReadCloser
	file *os.File
}

func (c closers) Close() error {
	c.ReadCloser.Close()
	return c.file.Close()
}

// BigLogFile decompresses the 142 MB Databricks log once into the system
// temporary directory and reuses it while its size is right.
func BigLogFile(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(os.TempDir(), "sparkglance-bench-nds_q88_photon_db_13_3.json")
	if fi, err := os.Stat(dst); err == nil && fi.Size() == BigLogBytes {
		return dst
	}
	r := LogReader(t, BigLog)
	defer r.Close()
	tmp, err := os.CreateTemp(os.TempDir(), "sparkglance-bench-*.partial")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if n != BigLogBytes {
		t.Fatalf("%s decompressed to %d bytes, want %d", BigLog, n, BigLogBytes)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// LiveHeapMB collects garbage and returns HeapInuse in MB, off the clock.
func LiveHeapMB(b *testing.B) float64 {
	b.StopTimer()
	defer b.StartTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / 1e6
}

// FirstDiff returns a description of the first difference between two
// decoded values, or "". nil and empty slices and maps are equal, and
// []NamedValue is compared as a set (the reference loses the order).
func FirstDiff(path string, a, b reflect.Value) string {
	if a.Kind() == reflect.Interface {
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: %v vs %v", path, a, b)
			}
			return ""
		}
		a, b = a.Elem(), b.Elem()
		if a.Type() != b.Type() {
			return fmt.Sprintf("%s: type %v vs %v", path, a.Type(), b.Type())
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil=%v vs nil=%v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return FirstDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := FirstDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		if a.Type().Elem().Name() == "NamedValue" {
			return namedDiff(path, a, b)
		}
		for i := 0; i < a.Len(); i++ {
			if d := FirstDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing on the right", path, k)
			}
			if d := FirstDiff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), bv); d != "" {
				return d
			}
		}
		return ""
	}
	if a.Kind() == reflect.Float64 && math.IsNaN(a.Float()) && math.IsNaN(b.Float()) {
		return "" // rates Spark could not compute, on both sides
	}
	if !a.Equal(b) {
		return fmt.Sprintf("%s: %#v vs %#v", path, a.Interface(), b.Interface())
	}
	return ""
}

// namedDiff compares two []sparkevent.NamedValue as sets of Name → Value.
func namedDiff(path string, a, b reflect.Value) string {
	m := map[string]int64{}
	for i := range b.Len() {
		m[b.Index(i).FieldByName("Name").String()] = b.Index(i).FieldByName("Value").Int()
	}
	for i := range a.Len() {
		name, value := a.Index(i).FieldByName("Name").String(), a.Index(i).FieldByName("Value").Int()
		if v, ok := m[name]; !ok || v != value {
			return fmt.Sprintf("%s[%q]: %d vs %d (present %v)", path, name, value, v, ok)
		}
	}
	return ""
}

// AsSQLUpdates replaces, in place, the Accumulables of every struct
// reachable from v that has them by their SQL updates (each entry's
// SQLUpdate method, as Decoder.SQLUpdatesOnly gives them), and returns how
// many entries were dropped and how many kept.
func AsSQLUpdates(v reflect.Value) (dropped, kept int) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return AsSQLUpdates(v.Elem())
		}
	case reflect.Struct:
		if accs, updates := v.FieldByName("Accumulables"), v.FieldByName("SQLUpdates"); accs.IsValid() && updates.IsValid() {
			var out reflect.Value // nil when no entry is an SQL update
			for i := range accs.Len() {
				if r := accs.Index(i).Addr().MethodByName("SQLUpdate").Call(nil); r[1].Bool() {
					if !out.IsValid() {
						out = reflect.MakeSlice(updates.Type(), 0, 0)
					}
					out = reflect.Append(out, r[0])
				}
			}
			n := accs.Len()
			accs.Set(reflect.Zero(accs.Type()))
			if out.IsValid() {
				updates.Set(out)
				kept = out.Len()
			} else {
				updates.Set(reflect.Zero(updates.Type()))
			}
			dropped = n - kept
		}
		for i := range v.NumField() {
			d, k := AsSQLUpdates(v.Field(i))
			dropped, kept = dropped+d, kept+k
		}
	case reflect.Slice:
		for i := range v.Len() {
			d, k := AsSQLUpdates(v.Index(i))
			dropped, kept = dropped+d, kept+k
		}
	}
	return dropped, kept
}
