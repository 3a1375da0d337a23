package spark

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// An application name holding a raw 0xFF byte (as a Spark endpoint may
// send it) is exported as U+FFFD instead of failing or panicking the scrape.
// The REST answer goes through encoding/json, which already makes it valid;
// the emitter's own sanitising covers values taken from metric keys.
func TestInvalidUTF8AppNameFromEndpoint(t *testing.T) {
	routes := otelRoutes(t, nil)
	apps := routes["/api/v1/applications"]
	name := []byte(`"name": "streaming-example"`)
	if !bytes.Contains(apps, name) {
		t.Fatalf("the applications fixture has no %s", name)
	}
	routes["/api/v1/applications"] = bytes.ReplaceAll(apps, name, []byte("\"name\": \"bad\xffname\""))
	srv := fakeSpark(t, routes)
	c, _ := newTestCollector(t, Options{URLs: []string{srv.URL}})
	text := scrape(t, c, 10*time.Second) // a pedantic registry: fails on invalid UTF-8
	if !utf8.ValidString(text) {
		t.Fatal("the scrape is not valid UTF-8")
	}
	if !strings.Contains(text, `app_name="bad`+"\uFFFD"+`name"`) {
		t.Errorf("no series with app_name bad\\uFFFDname:\n%s", text)
	}
}
