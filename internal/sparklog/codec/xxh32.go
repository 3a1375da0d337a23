package codec

import (
	"encoding/binary"
	"math/bits"
)

// XXH32 (Yann Collet's xxHash, 32-bit), as lz4-java's StreamingXXHash32
// computes it for LZ4Block checksums.
const (
	xxhPrime1 uint32 = 2654435761
	xxhPrime2 uint32 = 2246822519
	xxhPrime3 uint32 = 3266489917
	xxhPrime4 uint32 = 668265263
	xxhPrime5 uint32 = 374761393
)

func xxh32Round(acc, lane uint32) uint32 {
	return bits.RotateLeft32(acc+lane*xxhPrime2, 13) * xxhPrime1
}

func xxh32(b []byte, seed uint32) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		v1 := seed + xxhPrime1 + xxhPrime2
		v2 := seed + xxhPrime2
		v3 := seed
		v4 := seed - xxhPrime1
		for ; len(b) >= 16; b = b[16:] {
			v1 = xxh32Round(v1, binary.LittleEndian.Uint32(b[0:]))
			v2 = xxh32Round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = xxh32Round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = xxh32Round(v4, binary.LittleEndian.Uint32(b[12:]))
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + xxhPrime5
	}
	h += uint32(n)
	for ; len(b) >= 4; b = b[4:] {
		h += binary.LittleEndian.Uint32(b) * xxhPrime3
		h = bits.RotateLeft32(h, 17) * xxhPrime4
	}
	for _, c := range b {
		h += uint32(c) * xxhPrime5
		h = bits.RotateLeft32(h, 11) * xxhPrime1
	}
	h ^= h >> 15
	h *= xxhPrime2
	h ^= h >> 13
	h *= xxhPrime3
	h ^= h >> 16
	return h
}
