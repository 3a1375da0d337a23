package sparklog

// Accumulables are most of a task's line (a Databricks TaskEnd carries
// hundreds, and they are nine tenths of nds_q88's bytes), and Spark writes
// every one the same way: JsonProtocol's accumulableInfoToJson emits
//
//	{"ID":8,"Name":"…","Update":…,"Value":…,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}
//
// with no whitespace, the keys in that order and Name, Update, Value and
// Metadata only when defined. accumulableFast reads exactly that layout by
// matching the fixed key text in place, and gives up, with the cursor
// unmoved, at the first byte that differs (another order, whitespace, an
// escape, a fraction, a list of blocks); the general decoder then reads the
// object from its start, so both paths give the same Accumulable.

// accNameSlots is the size of the direct-mapped cache of accumulator names
// by ID: an accumulator keeps its name for the life of the application, so
// a name seen once is then recognised by comparing bytes, with no scan for
// its end and no hash.
const accNameSlots = 4096

type accName struct {
	id   int64
	name string
}

// at reports whether the constant key text k comes at b[p:]. Called with a
// constant, it inlines to one or two word compares: keys are matched on
// every accumulable, and a call to memequal for each would cost more than
// the rest of the decoding.
func at(b []byte, p int, k string) bool {
	if len(b)-p < len(k) {
		return false
	}
	if len(k) > 16 { // the compiler merges compares of up to 16 bytes
		return string(b[p:p+16]) == k[:16] && string(b[p+16:p+len(k)]) == k[16:]
	}
	return string(b[p:p+len(k)]) == k
}

// accumulableFast decodes the accumulable at the cursor if it is written
// exactly as Spark writes it, and reports whether it did.
func (d *Decoder) accumulableFast(a *Accumulable) bool {
	b := d.buf
	p := d.pos
	if !at(b, p, `{"ID":`) {
		return false
	}
	id, p, ok := plainInt(b, p+len(`{"ID":`))
	if !ok {
		return false
	}
	out := Accumulable{ID: id}
	if at(b, p, `,"Name":"`) {
		if out.Name, p, ok = d.accName(b, p+len(`,"Name":"`), id); !ok {
			return false
		}
	}
	var updNum, valNum, hasVal bool
	if at(b, p, `,"Update":`) {
		if out.Update, updNum, p, ok = flexIntAt(b, p+len(`,"Update":`)); !ok {
			return false
		}
		out.HasUpdate = true
	}
	if at(b, p, `,"Value":`) {
		if out.Value, valNum, p, ok = flexIntAt(b, p+len(`,"Value":`)); !ok {
			return false
		}
		hasVal = true
	}
	if at(b, p, `,"Internal":`) {
		if out.Internal, p, ok = boolAt(b, p+len(`,"Internal":`)); !ok {
			return false
		}
	}
	if at(b, p, `,"Count Failed Values":`) {
		if out.CountFailedValues, p, ok = boolAt(b, p+len(`,"Count Failed Values":`)); !ok {
			return false
		}
	}
	if at(b, p, `,"Metadata":"`) {
		p += len(`,"Metadata":"`)
		if at(b, p, `sql"`) {
			out.Metadata, p = "sql", p+4
		} else {
			end := scanPlain(b, p)
			if end >= len(b) || b[end] != '"' {
				return false
			}
			out.Metadata, p = d.intern.get(b[p:end]), end+1
		}
	}
	if p >= len(b) || b[p] != '}' {
		return false
	}
	// Numeric when every value present is an integer, as in accumulable.
	out.Numeric = (out.HasUpdate || hasVal) && (!out.HasUpdate || updNum) && (!hasVal || valNum)
	if !out.Numeric {
		out.Update, out.Value = 0, 0
	}
	*a = out
	d.pos = p + 1
	return true
}

// accName reads a name without escapes that starts at p, ending at its
// closing quote, and returns the position after that quote.
func (d *Decoder) accName(b []byte, p int, id int64) (string, int, bool) {
	slot := &d.accNames[uint64(id)%accNameSlots]
	if slot.id == id && slot.name != "" && len(b)-p > len(slot.name) && string(b[p:p+len(slot.name)]) == slot.name {
		if q := p + len(slot.name); q < len(b) && b[q] == '"' {
			return slot.name, q + 1, true
		}
	}
	end := scanPlain(b, p)
	if end >= len(b) || b[end] != '"' {
		return "", 0, false
	}
	name := d.intern.get(b[p:end])
	*slot = accName{id: id, name: name}
	return name, end + 1, true
}

// plainInt reads a JSON integer at p (an optional minus, digits without a
// leading zero, at most 18 of them so it cannot overflow) followed by
// neither a fraction nor an exponent.
func plainInt(b []byte, p int) (int64, int, bool) {
	neg := p < len(b) && b[p] == '-'
	if neg {
		p++
	}
	start := p
	var u int64
	for ; p < len(b) && b[p]-'0' < 10; p++ {
		u = u*10 + int64(b[p]-'0')
	}
	n := p - start
	if n == 0 || n > 18 || (n > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if p < len(b) && (b[p] == '.' || b[p] == 'e' || b[p] == 'E') {
		return 0, 0, false
	}
	if neg {
		u = -u
	}
	return u, p, true
}

// flexIntAt reads an accumulable value at p: a plain integer, or a string
// without escapes, which is numeric when it holds a decimal integer (as
// flexInt reads it). Anything else is left to the general decoder.
func flexIntAt(b []byte, p int) (v int64, numeric bool, next int, ok bool) {
	if p < len(b) && b[p] == '"' {
		end := scanPlain(b, p+1)
		if end >= len(b) || b[end] != '"' {
			return 0, false, 0, false
		}
		v, numeric = parseDecimal(b[p+1 : end])
		return v, numeric, end + 1, true
	}
	v, next, ok = plainInt(b, p)
	return v, ok, next, ok
}

func boolAt(b []byte, p int) (bool, int, bool) {
	switch {
	case at(b, p, "true"):
		return true, p + 4, true
	case at(b, p, "false"):
		return false, p + 5, true
	}
	return false, 0, false
}
