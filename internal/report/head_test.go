package report

import (
	"strings"
	"testing"
)

// The page title comes from the document's first keys; a document that is
// not an object is refused, and keys after the title's are not needed.
func TestReadHead(t *testing.T) {
	for _, c := range []struct {
		doc, id, name string
		ok            bool
	}{
		{`{"appId":"app-1","attemptId":"","appName":"etl <nightly>","rest":[1,2,3]}`, "app-1", "etl <nightly>", true},
		{`{"stages":[{"a":{"b":[1]}}],"appName":"late","appId":"app-2"}`, "app-2", "late", true},
		{`{"appId":"app-3"}`, "app-3", "", true},
		{`{}`, "", "", true},
		{`{"appId":"app-4","appName":"x"` + strings.Repeat(" ", 10) + `,"cut`, "app-4", "x", true}, // stops before the cut
		{`[{"appId":"app-5"}]`, "", "", false},
		{`{"appId":5}`, "", "", false},
		{``, "", "", false},
	} {
		h, err := readHead([]byte(c.doc))
		if (err == nil) != c.ok || h.AppID != c.id || h.AppName != c.name {
			t.Errorf("%s: %+v, %v; want %q %q ok=%v", c.doc, h, err, c.id, c.name, c.ok)
		}
	}
}
