package jsonindent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
)

type inner struct {
	A int     `json:"a"`
	B string  `json:"b,omitempty"`
	C *inner  `json:"c,omitempty"`
	D []inner `json:"d"`
}

type Embedded struct {
	E1 int    `json:"e1"`
	E2 string `json:"e2,omitempty"`
}

type valueMarshaler struct{}

func (v valueMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`{"x" : [1, 2, {"<y>": "&"}]}`), nil
}

type ptrMarshaler struct{}

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"pointer"`), nil }

type textKey int

func (k textKey) MarshalText() ([]byte, error) { return []byte("k" + string(rune('a'+int(k)))), nil }

type zoo struct {
	Embedded
	Bool      bool                    `json:"bool"`
	Int8      int8                    `json:"int8"`
	Uint      uint64                  `json:"uint,omitempty"`
	F32       float32                 `json:"f32"`
	F64       float64                 `json:"f64"`
	Str       string                  `json:"str"`
	NoTag     int                     // named by its Go name
	Skipped   int                     `json:"-"`
	hidden    int                     // unexported: never written
	Ptr       *inner                  `json:"ptr"`
	NilPtr    *inner                  `json:"nilPtr"`
	Slice     []inner                 `json:"slice"`
	NilSlice  []int                   `json:"nilSlice"`
	Empty     []int                   `json:"empty"`
	OmitSlice []int                   `json:"omitSlice,omitempty"`
	Array     [3]int8                 `json:"array"`
	Bytes     []byte                  `json:"bytes"`
	Map       map[string]inner        `json:"map"`
	IntMap    map[int]float64         `json:"intMap"`
	NilMap    map[string]int          `json:"nilMap"`
	EmptyMap  map[string]int          `json:"emptyMap"`
	TextMap   map[textKey]int         `json:"textMap"`
	Any       any                     `json:"any"`
	NilAny    any                     `json:"nilAny"`
	Number    json.Number             `json:"number"`
	Value     valueMarshaler          `json:"value"`
	Pointer   ptrMarshaler            `json:"pointer"`
	PtrSlice  []ptrMarshaler          `json:"ptrSlice"`
	PtrMap    map[string]ptrMarshaler `json:"ptrMap"`
	Raw       json.RawMessage         `json:"raw"`
	Odd       odd                     `json:"odd"`
}

// odd has tag options left to encoding/json.
type odd struct {
	Quoted int `json:"quoted,string"`
	Zero   int `json:"zero,omitzero"`
}

func sample() zoo {
	return zoo{
		Embedded: Embedded{E1: 7},
		Bool:     true, Int8: -8, Uint: math.MaxUint64, F32: 1.1, F64: 1e21, Str: "plain",
		NoTag: 3, Skipped: 4, hidden: 5,
		Ptr:   &inner{A: 1, C: &inner{A: 2, D: []inner{}}},
		Slice: []inner{{A: 1, B: "<b>"}, {D: []inner{{A: 3}}}},
		Empty: []int{}, Array: [3]int8{1, 2, 3}, Bytes: []byte("bytes"),
		Map:      map[string]inner{"b": {A: 2}, "a": {A: 1}, "10": {}, "9": {}, "é": {}, "<": {}},
		IntMap:   map[int]float64{10: 1e-7, 9: math.Copysign(0, -1), -1: 123456789.125},
		EmptyMap: map[string]int{},
		TextMap:  map[textKey]int{2: 1, 0: 2},
		Any:      map[string]any{"x": []any{1.5, "s", nil, true, map[string]any{}}},
		Number:   "12.50", Odd: odd{Quoted: 9}, Raw: json.RawMessage(`{"r":  [ ]}`),
		PtrSlice: []ptrMarshaler{{}}, PtrMap: map[string]ptrMarshaler{"p": {}},
	}
}

func same(t *testing.T, v any, prefix, indent string) {
	t.Helper()
	want, werr := json.MarshalIndent(v, prefix, indent)
	got, gerr := Append(nil, v, prefix, indent)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("error %v, encoding/json %v", gerr, werr)
	}
	if werr != nil {
		if gerr.Error() != werr.Error() {
			t.Errorf("error %q, encoding/json %q", gerr, werr)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("differs from encoding/json at byte %d:\n%s\nwant\n%s", firstDiff(got, want), got, want)
	}
	var w bytes.Buffer
	if err := Write(context.Background(), &w, v, prefix, indent); err != nil || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("Write: %v, differs at byte %d", err, firstDiff(w.Bytes(), want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestSameAsEncodingJSON(t *testing.T) {
	if _, ok := fieldsOf(reflect.TypeFor[zoo](), nil, map[reflect.Type]bool{}); !ok {
		t.Fatal("zoo is left to encoding/json whole: the test would compare it with itself")
	}
	if _, ok := fieldsOf(reflect.TypeFor[odd](), nil, map[reflect.Type]bool{}); ok {
		t.Fatal("odd's tag options are not left to encoding/json")
	}
	z := sample()
	for _, c := range []struct{ prefix, indent string }{{"", "  "}, {"  ", "  "}, {"", "\t"}, {"> ", ""}} {
		same(t, z, c.prefix, c.indent)
		same(t, &z, c.prefix, c.indent) // addressable: the pointer method applies
	}
	for _, v := range []any{
		nil, 1, "x", []int{}, []int(nil), map[string]int{}, struct{}{}, &struct{}{},
		struct {
			A int `json:"a,omitempty"`
		}{},
		"<script>&\u2028\u2029\x01\"\\" + string([]byte{0xff, 'a'}),
		[]float64{0, math.Copysign(0, -1), 1, -1, 1048576, 999999999999999, 1e15, -1e15, 4503599627370497, 1e-6, 9.99e-7, 1e20, 1e21, 123.456, math.MaxFloat64, math.SmallestNonzeroFloat64},
		[]float32{1e-6, 9.99e-7, 1e20, 1e21, 0.1, 1e14, 123456789, 16777217},
		map[string]any{"deep": []any{[]any{[]any{}}}},
	} {
		same(t, v, "  ", "  ")
	}
}

// Floats of every magnitude, whole and not, as float64 and float32.
func TestFloatsAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	f64 := make([]float64, 0, 20_000)
	f32 := make([]float32, 0, 20_000)
	for range 10_000 {
		x := (rng.Float64() - 0.5) * math.Pow(10, rng.Float64()*50-25)
		w := math.Trunc((rng.Float64() - 0.5) * math.Pow(10, rng.Float64()*22)) // whole, up to 1e21
		f64 = append(f64, x, w)
		f32 = append(f32, float32(x), float32(w))
	}
	same(t, f64, "", " ")
	same(t, f32, "", " ")
}

func TestErrorsAsEncodingJSON(t *testing.T) {
	for _, v := range []any{math.NaN(), []float64{1, math.Inf(1)}, map[string]any{"c": make(chan int)}, struct{ F func() }{}} {
		same(t, v, "", "  ")
	}
}

// Random values of a type with most kinds nested, against encoding/json.
func TestRandomValues(t *testing.T) {
	type leaf struct {
		S  string            `json:"s"`
		F  float64           `json:"f,omitempty"`
		I  int64             `json:"i"`
		U  uint16            `json:"u"`
		B  bool              `json:"b,omitempty"`
		M  map[string]int32  `json:"m"`
		P  *float32          `json:"p"`
		Q  []string          `json:"q,omitempty"`
		IM map[int16]float32 `json:"im"`
	}
	type tree struct {
		Embedded
		Leaves []leaf           `json:"leaves"`
		ByName map[string]leaf  `json:"byName"`
		Ptrs   []*leaf          `json:"ptrs"`
		Nested map[string][]int `json:"nested,omitempty"`
		Arr    [2]leaf          `json:"arr"`
	}
	rng := rand.New(rand.NewSource(1))
	typ := reflect.TypeFor[tree]()
	for range 300 {
		v, ok := quick.Value(typ, rng)
		if !ok {
			t.Fatal("quick.Value")
		}
		same(t, v.Interface(), "  ", "  ")
	}
}

func TestWriteStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var w bytes.Buffer
	err := Write(ctx, &w, make([]int, 10*ctxEvery), "", "  ")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if w.Len() > flushAt+ctxEvery*16 {
		t.Errorf("%d bytes written after the context ended", w.Len())
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriteStopsAtWriteError(t *testing.T) {
	w := &failingWriter{}
	err := Write(context.Background(), w, make([]string, 100_000), "", "  ")
	if err == nil || !strings.Contains(err.Error(), "disk full") || w.n != 1 {
		t.Fatalf("error %v after %d writes, want the writer's error after one", err, w.n)
	}
}

// Numbers, booleans and strings are read at their offsets when the struct
// is addressable (in a slice, behind a pointer, in an embedded struct):
// every kind, plain and omitempty, zero and not, named types with and
// without methods of their own, written as encoding/json writes them.
func TestScalarFieldsAtOffsets(t *testing.T) {
	type count int32
	type Scalars struct {
		B    bool    `json:"b"`
		Bo   bool    `json:"bo,omitempty"`
		I    int     `json:"i"`
		Io   int     `json:"io,omitempty"`
		I8   int8    `json:"i8,omitempty"`
		I16  int16   `json:"i16"`
		I32  int32   `json:"i32,omitempty"`
		I64  int64   `json:"i64"`
		U    uint    `json:"u,omitempty"`
		U8   uint8   `json:"u8"`
		U16  uint16  `json:"u16,omitempty"`
		U32  uint32  `json:"u32"`
		U64  uint64  `json:"u64,omitempty"`
		UP   uintptr `json:"up"`
		F32  float32 `json:"f32,omitempty"`
		F64  float64 `json:"f64"`
		F64o float64 `json:"f64o,omitempty"`
		S    string  `json:"s"`
		So   string  `json:"so,omitempty"`
		C    count   `json:"c,omitempty"`
		K    textKey `json:"k"`
		N    json.Number
	}
	type outer struct {
		X int `json:"x"`
		Scalars
		Tail Scalars `json:"tail"`
	}
	rng := rand.New(rand.NewSource(3))
	rows := make([]outer, 0, 200)
	for i := range 200 {
		v, ok := quick.Value(reflect.TypeFor[outer](), rng)
		if !ok {
			t.Fatal("quick.Value")
		}
		o := v.Interface().(outer)
		o.K, o.Tail.K = textKey(i%3), textKey(i%2)
		o.N, o.Tail.N = "1", "2.5"
		if i%3 == 0 { // zeros, and a negative zero that omitempty drops
			o.Scalars = Scalars{F64o: math.Copysign(0, -1), N: "0"}
		}
		rows = append(rows, o)
	}
	same(t, rows, "  ", "  ")   // addressable elements
	same(t, rows[0], "", "  ")  // not addressable: by reflection
	same(t, &rows[1], "", "\t") // addressable through the pointer
	same(t, map[string]outer{"a": rows[2], "b": rows[0]}, "", " ")
}
