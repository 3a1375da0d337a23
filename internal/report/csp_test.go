package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

var (
	metaCSP    = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	scriptTags = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
)

// policy reads a page's meta Content-Security-Policy, entities decoded.
func policy(t *testing.T, page string) string {
	t.Helper()
	m := metaCSP.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no Content-Security-Policy meta in the page")
	}
	return html.UnescapeString(m[1])
}

// directive returns the sources of one directive of a policy.
func directive(csp, name string) []string {
	for _, d := range strings.Split(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == name {
			return f[1:]
		}
	}
	return nil
}

// The page and the index allow exactly the scripts they carry, by hash:
// no 'unsafe-inline', every executable inline script's SHA-256 listed (the
// embedded document is data, not a script); the served headers add
// frame-ancestors 'none'.
func TestPagesAllowOnlyTheirOwnScripts(t *testing.T) {
	var page, index bytes.Buffer
	if err := report.WritePage(&page, report.Page{Doc: []byte(`{"appId":"app-1","appName":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteIndex(&index, report.Index{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"page": page.String(), "index": index.String()} {
		csp := policy(t, text)
		scripts := directive(csp, "script-src")
		if len(scripts) == 0 || strings.Contains(strings.Join(scripts, " "), "unsafe") {
			t.Errorf("%s: script-src %q, want hashes only", name, scripts)
		}
		if got := directive(csp, "default-src"); len(got) != 1 || got[0] != "'none'" {
			t.Errorf("%s: default-src %q, want 'none'", name, got)
		}
		executable := 0
		for _, m := range scriptTags.FindAllStringSubmatch(text, -1) {
			if strings.Contains(m[1], `type="application/json"`) {
				continue
			}
			executable++
			sum := sha256.Sum256([]byte(m[2]))
			hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
			if !strings.Contains(strings.Join(scripts, " "), hash) {
				t.Errorf("%s: script %.60q… (%s) not allowed by %q", name, m[2], hash, scripts)
			}
		}
		if executable != len(scripts) {
			t.Errorf("%s: %d executable scripts, %d hashes allowed", name, executable, len(scripts))
		}
		header := map[string]string{"page": report.PageCSP, "index": report.IndexCSP}[name]
		if !strings.HasPrefix(header, csp) || !slicesEqual(directive(header, "frame-ancestors"), []string{"'none'"}) {
			t.Errorf("%s: served policy %q, want the page's with frame-ancestors 'none'", name, header)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// In Chromium, markup injected into a rendered page cannot run script: an
// inline <script> and an inline event handler are both blocked (the page's
// own scripts ran, since the charts are drawn).
func TestPageBlocksInjectedScript(t *testing.T) {
	_, doc := readDoc(t, testkit.Events(t, "app-20200706201101-0003"))
	page := writePage(t, doc)
	b := reporttest.New(t, 1000, 800, 60*time.Second)
	b.Open(t, "file://"+page)
	var ran map[string]bool
	b.Eval(t, `(() => {
  const s = document.createElement("script");
  s.textContent = "window.__injected = true";
  document.body.appendChild(s);
  const a = document.createElement("a");
  a.setAttribute("onclick", "window.__handler = true");
  document.body.appendChild(a);
  a.click();
  return { script: window.__injected === true, handler: window.__handler === true };
})()`, &ran)
	if ran["script"] || ran["handler"] {
		t.Errorf("injected markup ran: %v", ran)
	}
}

// Strings over report.MaxDisplayString are cut at a character boundary
// and marked, escapes and multi-byte characters intact; the document stays
// JSON and short strings are untouched; a page of an application whose
// name is 3 MB is about 1 MB larger than an ordinary one, not 3 MB.
func TestLongStringsTruncatedForDisplay(t *testing.T) {
	const limit = 16
	for _, tc := range []struct{ in, want string }{
		{`{"a":"short","b":[1,2]}`, `{"a":"short","b":[1,2]}`},
		{`{"name":"0123456789abcdefXYZ","n":1}`, `{"name":"0123456789abcdef…[truncated]","n":1}`},
		{`["0123456789abcd\u00e9XYZ"]`, `["0123456789abcd…[truncated]"]`},
		{`["0123456789abcd\"\\XYZ"]`, `["0123456789abcd\"…[truncated]"]`},
		{`["0123456789abcdé€XYZ"]`, `["0123456789abcdé…[truncated]"]`},
		{`{"0123456789abcdefghij":"v"}`, `{"0123456789abcdef…[truncated]":"v"}`},
	} {
		got := string(report.TruncateLongStrings([]byte(tc.in), limit))
		if got != tc.want || !json.Valid([]byte(got)) {
			t.Errorf("%s: got %s (valid JSON %v), want %s", tc.in, got, json.Valid([]byte(got)), tc.want)
		}
	}

	name := strings.Repeat("ab<\"é", 3<<20/6)
	doc, err := json.Marshal(map[string]any{"appId": "app-1", "appName": name, "stages": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	var small, big bytes.Buffer
	if err := report.WritePage(&small, report.Page{Doc: []byte(`{"appId":"app-1","appName":"x","stages":[]}`)}); err != nil {
		t.Fatal(err)
	}
	if err := report.WritePage(&big, report.Page{Doc: doc}); err != nil {
		t.Fatal(err)
	}
	// HTMLEscape may grow each kept byte up to 6 times, the title once more.
	if extra := big.Len() - small.Len(); extra > 8*report.MaxDisplayString || extra < report.MaxDisplayString/2 {
		t.Errorf("a %d-byte name adds %d bytes to the page, want about %d or a few times it", len(name), extra, report.MaxDisplayString)
	}
	if !strings.Contains(big.String(), "…[truncated]") {
		t.Error("the page does not mark the truncated name")
	}
}
