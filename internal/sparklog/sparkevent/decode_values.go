package sparkevent

import "fmt"

// intList decodes an array of integers; empty and null give nil.
func (d *Decoder) intList() []int {
	var out []int
	for more := d.arrayStart(); more; more = d.arrayNext() {
		out = append(out, d.int())
	}
	return out
}

// stringMap decodes a string → string map, written by Spark as an object
// or, by some writers, as an array of [key, value] pairs. Empty and null
// give nil. Keys and short values are interned: configurations repeat on
// every job.
func (d *Decoder) stringMap() map[string]string {
	var m map[string]string
	if d.peek() == '[' {
		for more := d.arrayStart(); more; more = d.arrayNext() {
			k, v := d.stringPair()
			if m == nil {
				m = make(map[string]string)
			}
			m[k] = v
		}
		return m
	}
	for more := d.objectStart(); more; more = d.objectNext() {
		k := d.intern.get(d.key)
		v := d.istr()
		if m == nil {
			m = make(map[string]string)
		}
		m[k] = v
	}
	return m
}

// stringPair decodes a [key, value] array of two strings.
func (d *Decoder) stringPair() (k, v string) {
	d.ws()
	at := d.pos
	if d.arrayStart() {
		k = d.istr()
		if d.arrayNext() {
			v = d.istr()
			if !d.arrayNext() {
				return k, v
			}
		}
	}
	if d.err == nil {
		d.fail(at, false, fmt.Sprintf("%s: key %q: expected a [key, value] pair of strings", d.event, d.key))
	}
	return "", ""
}
