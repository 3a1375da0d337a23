// Package jsonindent writes the bytes json.MarshalIndent writes, without
// building the compact document first and re-indenting it: a million
// executors make a document of 1.5 GB, whose marshalling and indenting
// took most of `analyze --json`'s time and several times its size in
// memory. Values are written as they are walked, in pieces to an
// io.Writer, with the context looked at between the elements of long
// arrays and maps.
//
// Booleans, numbers, strings, structs (json tags with a name and
// omitempty, embedded structs), pointers, slices, arrays, interfaces and
// maps keyed by strings or integers are written here; anything else
// (a json.Marshaler or encoding.TextMarshaler, []byte, json.Number, tag
// options such as omitzero or string, field names that collide) is
// handed to encoding/json, value by value, at the right indentation. The
// tests compare the two on every shared event log's document.
package jsonindent

import (
	"context"
	"encoding"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Append appends to dst what json.MarshalIndent(v, prefix, indent)
// returns, or returns its error.
func Append(dst []byte, v any, prefix, indent string) ([]byte, error) {
	e := encoder{b: dst, prefix: prefix, indent: indent}
	if err := e.run(v); err != nil {
		return dst, err
	}
	return e.b, nil
}

// Write writes to w what json.MarshalIndent(v, prefix, indent) returns.
// It stops with ctx's error once ctx is done (what was written so far is
// a cut document), and with encoding/json's error for a value it cannot
// encode (a NaN), having written part of the document.
func Write(ctx context.Context, w io.Writer, v any, prefix, indent string) error {
	e := encoder{b: make([]byte, 0, 2*flushAt), w: w, ctx: ctx, prefix: prefix, indent: indent}
	if err := e.run(v); err != nil {
		return err
	}
	e.flush()
	return e.err
}

// flushAt is how many bytes are buffered before they go to the writer.
const flushAt = 64 << 10

// ctxEvery is how many elements of an array or map are written between
// two looks at the context.
const ctxEvery = 1024

// maxDepth bounds the nesting, as encoding/json detects cycles.
const maxDepth = 1000

type encoder struct {
	b              []byte
	w              io.Writer
	ctx            context.Context
	err            error // the writer's or the context's, sticky
	prefix, indent string
	depth          int
	newlines       []string // "\n" + prefix + depth × indent, by depth
	elems          int      // elements written since the last look at ctx
}

// stop unwinds the walk with the encoder's error.
type stop struct{ err error }

func (e *encoder) run(v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stop)
			if !ok {
				panic(r)
			}
			err = s.err
		}
	}()
	if v == nil {
		e.b = append(e.b, "null"...)
		return nil
	}
	rv := reflect.ValueOf(v)
	encoderOf(rv.Type())(e, rv)
	return e.err
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
	panic(stop{e.err})
}

// newline starts a line at the current depth.
func (e *encoder) newline() {
	for len(e.newlines) <= e.depth {
		e.newlines = append(e.newlines, "\n"+e.prefix+strings.Repeat(e.indent, len(e.newlines)))
	}
	e.b = append(e.b, e.newlines[e.depth]...)
}

// element is called after each element of an array or map: it hands
// full buffers to the writer and looks at the context now and then.
func (e *encoder) element() {
	if e.w != nil && len(e.b) >= flushAt {
		e.flush()
		if e.err != nil {
			e.fail(e.err)
		}
	}
	if e.ctx != nil {
		if e.elems++; e.elems >= ctxEvery {
			e.elems = 0
			if err := e.ctx.Err(); err != nil {
				e.fail(err)
			}
		}
	}
}

func (e *encoder) flush() {
	if e.err != nil || len(e.b) == 0 {
		return
	}
	_, e.err = e.w.Write(e.b)
	e.b = e.b[:0]
}

// fallback writes v as encoding/json does, indented for the current
// depth.
func (e *encoder) fallback(v reflect.Value) {
	x := v.Interface()
	if v.CanAddr() { // a pointer method (MarshalJSON on *T) applies, as it would in place
		x = v.Addr().Interface()
	}
	out, err := json.MarshalIndent(x, e.prefix+strings.Repeat(e.indent, e.depth), e.indent)
	if err != nil {
		e.fail(err)
	}
	e.b = append(e.b, out...)
}

type encodeFunc func(e *encoder, v reflect.Value)

var cache sync.Map // reflect.Type → encodeFunc

func encoderOf(t reflect.Type) encodeFunc {
	if f, ok := cache.Load(t); ok {
		return f.(encodeFunc)
	}
	// Recursive types: a placeholder that waits for the real function.
	var (
		wg sync.WaitGroup
		f  encodeFunc
	)
	wg.Add(1)
	placeholder, loaded := cache.LoadOrStore(t, encodeFunc(func(e *encoder, v reflect.Value) {
		wg.Wait()
		f(e, v)
	}))
	if loaded {
		return placeholder.(encodeFunc)
	}
	f = newEncoder(t)
	wg.Done()
	cache.Store(t, f)
	return f
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

// custom says whether encoding/json treats t by a method of its own.
func custom(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	if t.Kind() != reflect.Pointer {
		p := reflect.PointerTo(t)
		return p.Implements(marshalerType) || p.Implements(textMarshalerType)
	}
	return false
}

func newEncoder(t reflect.Type) encodeFunc {
	if custom(t) || t == numberType {
		return (*encoder).fallback
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(e *encoder, v reflect.Value) { e.b = strconv.AppendBool(e.b, v.Bool()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(e *encoder, v reflect.Value) { e.b = strconv.AppendInt(e.b, v.Int(), 10) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(e *encoder, v reflect.Value) { e.b = strconv.AppendUint(e.b, v.Uint(), 10) }
	case reflect.Float32:
		return func(e *encoder, v reflect.Value) { e.float(v.Float(), 32) }
	case reflect.Float64:
		return func(e *encoder, v reflect.Value) { e.float(v.Float(), 64) }
	case reflect.String:
		return func(e *encoder, v reflect.Value) { e.string(v.String()) }
	case reflect.Interface:
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.b = append(e.b, "null"...)
				return
			}
			e.value(v.Elem())
		}
	case reflect.Pointer:
		elem := t.Elem()
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.b = append(e.b, "null"...)
				return
			}
			if e.depth > maxDepth {
				e.fallback(v) // encoding/json's cycle error
			}
			encoderOf(elem)(e, v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !custom(t.Elem()) {
			return (*encoder).fallback // base64
		}
		elem := t.Elem()
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.b = append(e.b, "null"...)
				return
			}
			e.array(v, encoderOf(elem))
		}
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && !custom(t.Elem()) {
			return (*encoder).fallback
		}
		elem := t.Elem()
		return func(e *encoder, v reflect.Value) { e.array(v, encoderOf(elem)) }
	case reflect.Map:
		return mapEncoder(t)
	case reflect.Struct:
		return structEncoder(t)
	}
	return (*encoder).fallback // channels, functions, complex numbers: encoding/json's error
}

func (e *encoder) value(v reflect.Value) { encoderOf(v.Type())(e, v) }

func (e *encoder) array(v reflect.Value, elem encodeFunc) {
	n := v.Len()
	if n == 0 {
		e.b = append(e.b, "[]"...)
		return
	}
	e.b = append(e.b, '[')
	e.depth++
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.newline()
		elem(e, v.Index(i))
		e.element()
	}
	e.depth--
	e.newline()
	e.b = append(e.b, ']')
}

// float writes f as encoding/json does (ES6 number formatting).
func (e *encoder) float(f float64, bits int) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail(&json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, bits)})
	}
	abs := math.Abs(f)
	if bits == 64 && abs < 1e15 && f == math.Trunc(f) && (f != 0 || !math.Signbit(f)) {
		// A whole float64 below 2⁵³: its digits are the shortest form
		// (byte counts, task counts; much of a big document), without the
		// float search. (Not a float32's: 1e14 is 100000000376832 as a
		// float32, written 1e14's way.)
		e.b = strconv.AppendInt(e.b, int64(f), 10)
		return
	}
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, bits)
	if format == 'e' { // e-09 → e-9
		n := len(e.b)
		if n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

// string writes s quoted; a string with anything to escape (quotes,
// controls, <, >, &, non-ASCII that may need it) goes through
// encoding/json.
func (e *encoder) string(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s) // a string always encodes
			e.b = append(e.b, out...)
			return
		}
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"')
}

// field is one struct field encoding/json writes.
type field struct {
	key       string // `"name": `
	index     []int
	omitEmpty bool
	enc       encodeFunc
	// A number, boolean or string field (of a type without methods of
	// its own) is read at its offset in an addressable struct, without
	// reflection: the rows of a million executors are mostly such.
	offset uintptr
	scalar func(e *encoder, p unsafe.Pointer)
	empty  func(p unsafe.Pointer) bool // omitempty's test of the scalar
}

// scalarOf is the direct writer and emptiness test of a field of type t,
// or nil for anything but plain numbers, booleans and strings.
func scalarOf(t reflect.Type) (write func(e *encoder, p unsafe.Pointer), empty func(p unsafe.Pointer) bool) {
	if custom(t) || t == numberType {
		return nil, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(e *encoder, p unsafe.Pointer) { e.b = strconv.AppendBool(e.b, *(*bool)(p)) },
			func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.Int:
		return signed[int]()
	case reflect.Int8:
		return signed[int8]()
	case reflect.Int16:
		return signed[int16]()
	case reflect.Int32:
		return signed[int32]()
	case reflect.Int64:
		return signed[int64]()
	case reflect.Uint:
		return unsigned[uint]()
	case reflect.Uint16:
		return unsigned[uint16]()
	case reflect.Uint32:
		return unsigned[uint32]()
	case reflect.Uint64:
		return unsigned[uint64]()
	case reflect.Float32:
		return func(e *encoder, p unsafe.Pointer) { e.float(float64(*(*float32)(p)), 32) },
			func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }
	case reflect.Float64:
		return func(e *encoder, p unsafe.Pointer) { e.float(*(*float64)(p), 64) },
			func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	case reflect.String:
		return func(e *encoder, p unsafe.Pointer) { e.string(*(*string)(p)) },
			func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	}
	return nil, nil // uint8 and uintptr stay with reflection: rare in documents
}

// signed and unsigned are scalarOf's writer and emptiness test of an
// integer field of type T.
func signed[T int | int8 | int16 | int32 | int64]() (func(e *encoder, p unsafe.Pointer), func(p unsafe.Pointer) bool) {
	return func(e *encoder, p unsafe.Pointer) { e.b = strconv.AppendInt(e.b, int64(*(*T)(p)), 10) },
		func(p unsafe.Pointer) bool { return *(*T)(p) == 0 }
}

func unsigned[T uint | uint16 | uint32 | uint64]() (func(e *encoder, p unsafe.Pointer), func(p unsafe.Pointer) bool) {
	return func(e *encoder, p unsafe.Pointer) { e.b = strconv.AppendUint(e.b, uint64(*(*T)(p)), 10) },
		func(p unsafe.Pointer) bool { return *(*T)(p) == 0 }
}

// structEncoder writes t's fields, or hands t to encoding/json when its
// fields use anything this package does not do.
func structEncoder(t reflect.Type) encodeFunc {
	fields, ok := fieldsOf(t, nil, map[reflect.Type]bool{})
	if !ok {
		return (*encoder).fallback
	}
	names := map[string]bool{}
	for _, f := range fields {
		if names[f.key] {
			return (*encoder).fallback // encoding/json's dominance rules decide
		}
		names[f.key] = true
	}
	return func(e *encoder, v reflect.Value) {
		written := false
		var base unsafe.Pointer
		if v.CanAddr() {
			base = v.Addr().UnsafePointer()
		}
		e.depth++
		for i := range fields {
			f := &fields[i]
			if base != nil && f.scalar != nil {
				p := unsafe.Add(base, f.offset)
				if f.omitEmpty && f.empty(p) {
					continue
				}
				if written {
					e.b = append(e.b, ',')
				} else {
					e.b = append(e.b, '{')
				}
				written = true
				e.newline()
				e.b = append(e.b, f.key...)
				f.scalar(e, p)
				continue
			}
			fv := v.Field(f.index[0])
			for _, j := range f.index[1:] {
				fv = fv.Field(j)
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if written {
				e.b = append(e.b, ',')
			} else {
				e.b = append(e.b, '{')
			}
			written = true
			e.newline()
			e.b = append(e.b, f.key...)
			f.enc(e, fv)
		}
		e.depth--
		if !written {
			e.b = append(e.b, "{}"...)
			return
		}
		e.newline()
		e.b = append(e.b, '}')
	}
}

// fieldsOf lists t's fields in encoding/json's order (embedded structs'
// fields in place); ok is false for what this package leaves to
// encoding/json.
func fieldsOf(t reflect.Type, index []int, seen map[reflect.Type]bool) (fields []field, ok bool) {
	return fieldsAt(t, index, 0, seen)
}

// fieldsAt is fieldsOf for a struct at offset in the outermost one.
func fieldsAt(t reflect.Type, index []int, offset uintptr, seen map[reflect.Type]bool) (fields []field, ok bool) {
	if seen[t] {
		return nil, false
	}
	seen[t] = true
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		at := append(slices.Clone(index), i)
		if sf.Anonymous {
			if hasTag || sf.Type.Kind() != reflect.Struct || custom(sf.Type) {
				return nil, false
			}
			inner, ok := fieldsAt(sf.Type, at, offset+sf.Offset, seen)
			if !ok {
				return nil, false
			}
			fields = append(fields, inner...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omitEmpty := false
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "omitempty":
				omitEmpty = true
			default: // omitzero, string
				return nil, false
			}
		}
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) {
			return nil, false
		}
		write, empty := scalarOf(sf.Type)
		fields = append(fields, field{key: `"` + name + `": `, index: at, omitEmpty: omitEmpty, enc: encoderOf(sf.Type),
			offset: offset + sf.Offset, scalar: write, empty: empty})
	}
	return fields, true
}

// plainName says whether a field name is written as it is (encoding/json
// would escape or reject others).
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// mapEncoder writes a map's entries sorted by key, as encoding/json does.
// The entries are copied out once (SetIterKey/SetIterValue, no
// allocation per entry) and sorted by an index.
func mapEncoder(t reflect.Type) encodeFunc {
	kt := t.Key()
	var keyString func(k reflect.Value) string
	switch kt.Kind() {
	case reflect.String:
		keyString = reflect.Value.String
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if custom(kt) {
			return (*encoder).fallback
		}
		keyString = func(k reflect.Value) string { return strconv.FormatInt(k.Int(), 10) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if custom(kt) {
			return (*encoder).fallback
		}
		keyString = func(k reflect.Value) string { return strconv.FormatUint(k.Uint(), 10) }
	default:
		return (*encoder).fallback
	}
	elem := t.Elem()
	if pointerMethods(elem, map[reflect.Type]bool{}) {
		// Map values are not addressable in encoding/json, copied out
		// here they would be: leave such maps to it.
		return (*encoder).fallback
	}
	return func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.b = append(e.b, "null"...)
			return
		}
		n := v.Len()
		if n == 0 {
			e.b = append(e.b, "{}"...)
			return
		}
		if e.depth > maxDepth {
			e.fallback(v)
		}
		// Keys sorted with their value's place beside them: sorting
		// places by keys looked up elsewhere missed the cache at every
		// comparison of a million keys.
		type entry struct {
			key string
			at  int
		}
		entries := make([]entry, 0, n)
		vals := reflect.MakeSlice(reflect.SliceOf(elem), n, n)
		key := reflect.New(kt).Elem()
		it := v.MapRange()
		for i := 0; it.Next(); i++ {
			key.SetIterKey(it)
			entries = append(entries, entry{keyString(key), i})
			vals.Index(i).SetIterValue(it)
		}
		slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
		enc := encoderOf(elem)
		e.b = append(e.b, '{')
		e.depth++
		for i, en := range entries {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline()
			e.string(en.key)
			e.b = append(e.b, ':', ' ')
			enc(e, vals.Index(en.at))
			e.element()
		}
		e.depth--
		e.newline()
		e.b = append(e.b, '}')
	}
}

// pointerMethods says whether t holds, other than behind a pointer or in
// a slice, a type whose marshalling method is on its pointer only.
func pointerMethods(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind() != reflect.Pointer && !t.Implements(marshalerType) && !t.Implements(textMarshalerType) && custom(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Array:
		return pointerMethods(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if pointerMethods(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
