package sparkevent

// Spark writes every object of one kind with the same keys in the same
// order (JsonProtocol builds them field by field), so the keys of a task's
// Task Info, Task Metrics and the like repeat on every line. A keyOrder
// remembers the keys of the last object of its kind, in order; the next
// object's key at the same position is recognised by comparing its bytes
// where it must stand, without scanning for its end. Any other key is read
// as usual and takes that position in the order.

// maxKeyOrder bounds the keys one order remembers.
const maxKeyOrder = 64

type keyOrder struct {
	keys []string
	at   int // position of the next key in the current object
}

// objectStartAs is objectStart with the keys predicted by o.
func (d *Decoder) objectStartAs(o *keyOrder) bool {
	o.at = 0
	return d.enterObject() && d.readKeyAs(o)
}

// objectNextAs is objectNext with the keys predicted by o.
func (d *Decoder) objectNextAs(o *keyOrder) bool {
	return d.toNextKey() && d.readKeyAs(o)
}

// readKeyAs reads the key at the cursor, trying the predicted one first.
func (d *Decoder) readKeyAs(o *keyOrder) bool {
	b, p := d.buf, d.pos
	if o.at < len(o.keys) {
		k := o.keys[o.at]
		end := p + 1 + len(k)
		if end+1 < len(b) && b[p] == '"' && b[end] == '"' && b[end+1] == ':' && string(b[p+1:end]) == k {
			d.key = b[p+1 : end]
			d.pos = end + 2
			o.at++
			return d.err == nil
		}
	}
	if !d.readKey() {
		return false
	}
	if o.at < maxKeyOrder {
		for len(o.keys) < o.at {
			o.keys = append(o.keys, "") // positions before the first predicted key
		}
		k := d.intern.get(d.key)
		if o.at < len(o.keys) {
			o.keys[o.at] = k
		} else {
			o.keys = append(o.keys, k)
		}
	}
	o.at++
	return true
}
