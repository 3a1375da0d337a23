package codec

import (
	"errors"
	"fmt"
)

// ErrTruncated reports that the input ended inside a header, block or frame.
// For a live (growing) event log this only means "not written yet": every
// byte before the unfinished block has already been returned.
var ErrTruncated = errors.New("input ends inside a block (truncated or still being written)")

// CorruptError reports damaged input: bad magic, impossible lengths, a
// checksum mismatch or an undecodable block. Reading may continue after it.
type CorruptError struct {
	Codec  Codec
	Offset int64 // offset in the compressed file of the damaged header, block or frame
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: corrupt data at compressed offset %d: %s", e.Codec, e.Offset, e.Reason)
}

func corrupt(c Codec, off int64, format string, args ...any) *CorruptError {
	return &CorruptError{Codec: c, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func truncated(c Codec, off int64, what string) error {
	return fmt.Errorf("%s: input ends inside %s starting at compressed offset %d: %w", c, what, off, ErrTruncated)
}
