package eventlog

import (
	"encoding/json"
	"errors"
)

// DecodeLine decodes one event-log line (without its trailing newline) into
// a typed event. Lines of types the analysis does not need become *Other.
// The returned event does not alias line.
//
// PLACEHOLDER: only the event type is decoded; the fast decoder replaces this.
func DecodeLine(line []byte) (Event, error) {
	var head struct {
		Event string `json:"Event"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, err
	}
	if head.Event == "" {
		return nil, errors.New("no \"Event\" field")
	}
	return &Other{Type: head.Event}, nil
}
