package codec

// plainDecoder passes an uncompressed log through; every byte is a boundary.
type plainDecoder struct {
	src *source
	buf [32 << 10]byte
}

func (d *plainDecoder) step() ([]byte, bool, error) {
	n, err := d.src.Read(d.buf[:])
	return d.buf[:n], true, err
}
