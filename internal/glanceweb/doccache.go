package glanceweb

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/sparkglance/sparkglance/internal/report"
)

// docCacheSize bounds the applications whose encoded document is kept.
const docCacheSize = 256

// docCache keeps the JSON of each application's latest document, with the
// document it was encoded from: a followed application publishes a new
// document (a new pointer) when it changes, so hundreds of live pages
// polling an unchanged one get the same bytes instead of each encoding it
// again, which took the cores from the scrapes.
type docCache struct {
	mu      sync.Mutex
	entries map[string]docEntry
	order   []string // oldest key first
}

type docEntry struct {
	doc  any
	json []byte
}

func newDocCache() *docCache { return &docCache{entries: map[string]docEntry{}} }

// json returns the JSON of doc, the document of the application attempt
// key, for display (strings over report.MaxDisplayString truncated),
// newline-terminated.
func (c *docCache) json(key string, doc any) ([]byte, error) {
	// Only pointers are identities; a document passed by value is encoded
	// every time.
	cacheable := doc != nil && reflect.TypeOf(doc).Kind() == reflect.Pointer
	if cacheable {
		c.mu.Lock()
		e, ok := c.entries[key]
		c.mu.Unlock()
		if ok && e.doc == doc {
			return e.json, nil
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	b = append(report.TruncateLongStrings(b, report.MaxDisplayString), '\n')
	if cacheable {
		c.mu.Lock()
		if _, ok := c.entries[key]; !ok {
			c.order = append(c.order, key)
			if len(c.order) > docCacheSize {
				delete(c.entries, c.order[0])
				c.order = c.order[1:]
			}
		}
		c.entries[key] = docEntry{doc: doc, json: b}
		c.mu.Unlock()
	}
	return b, nil
}
