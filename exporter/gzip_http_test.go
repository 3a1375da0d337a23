package exporter_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// bigCollector hands over one family of several MB, in parts, so that a
// gzip'd scrape spans many compressed blocks.
type bigCollector struct{ parts []*exporter.Part }

func newBigCollector() bigCollector {
	const name = "sparkglance_test_big"
	var c bigCollector
	for p := range 12 {
		var ms []*dto.Metric
		for i := range 5000 {
			ms = append(ms, gaugeSeries(float64(i)*1.25, fmt.Sprintf("app-%d executor %05d \"quoted\"", p, i)))
		}
		c.parts = append(c.parts, exporter.NewPart(name, dto.MetricType_GAUGE, ms))
	}
	return c
}

func (c bigCollector) Families(context.Context) ([]exporter.Family, error) {
	return []exporter.Family{{Name: "sparkglance_test_big", Help: "Test: a big family.", Type: dto.MetricType_GAUGE, Parts: c.parts}}, nil
}

// scrapeBody GETs u with the given Accept-Encoding and returns the body as
// sent and its Content-Encoding; the transport decompresses nothing.
func scrapeBody(t *testing.T, u, acceptEncoding string) ([]byte, string) {
	t.Helper()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true}}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, error %v", u, resp.StatusCode, err)
	}
	return body, resp.Header.Get("Content-Encoding")
}

// A scrape that accepts gzip gets one gzip stream (compressed in blocks on
// all cores) holding exactly the text an uncompressed scrape gets.
func TestGzipScrapeEqualsPlain(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("big", true, exportertest.Fixed(exporter.FromFamilies(newBigCollector())))
	srv := exportertest.Start(t, cat)
	u := srv.URL + "/metrics?name[]=sparkglance_test_big"
	plain, enc := scrapeBody(t, u, "")
	if enc != "" || len(plain) < 3<<20 {
		t.Fatalf("plain scrape: Content-Encoding %q, %d bytes; want none, several MB", enc, len(plain))
	}
	compressed, enc := scrapeBody(t, u, "gzip")
	if enc != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", enc)
	}
	br := bytes.NewReader(compressed)
	r, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	r.Multistream(false)
	text, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	if br.Len() != 0 {
		t.Errorf("%d bytes after the gzip member", br.Len())
	}
	if !bytes.Equal(text, plain) {
		t.Errorf("gzip'd scrape: %d bytes of text, plain scrape %d; not the same", len(text), len(plain))
	}
	if len(compressed)*5 > len(plain) {
		t.Errorf("compressed %d bytes of %d: less than 5:1 on repetitive text", len(compressed), len(plain))
	}
}
