package objstoretest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// gofakes3 writes listings with encoding/xml, which turns a control
// character in a key into U+FFFD and ignores encoding-type=url. Real S3
// does neither: it writes such a key as a character reference (&#x1;),
// which no XML 1.0 parser accepts, unless the client asks for
// encoding-type=url, when every key, prefix and delimiter is URL-encoded
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html,
// "EncodingType"; spaces as "+", as a form does). The S3 fake answers
// ListObjectsV2 itself, from the backend, the way S3 does.

// isListV2 tells a ListObjectsV2 request (GET /bucket?list-type=2).
func isListV2(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Get("list-type") == "2" &&
		!strings.Contains(strings.Trim(r.URL.Path, "/"), "/")
}

// listV2 answers a ListObjectsV2 request from the backend.
func (s *S3) listV2(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	bucket := strings.Trim(r.URL.Path, "/")
	enc := q.Get("encoding-type")
	if enc != "" && enc != "url" {
		http.Error(w, "invalid encoding-type", http.StatusBadRequest)
		return
	}
	maxKeys := int64(1000)
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			http.Error(w, "invalid max-keys", http.StatusBadRequest)
			return
		}
		maxKeys = min(n, 1000)
	}
	page := gofakes3.ListBucketPage{MaxKeys: maxKeys}
	if tok := q.Get("continuation-token"); tok != "" {
		marker, err := base64.URLEncoding.DecodeString(tok)
		if err != nil {
			http.Error(w, "invalid continuation-token", http.StatusBadRequest)
			return
		}
		page.Marker, page.HasMarker = string(marker), true
	} else if sa := q.Get("start-after"); sa != "" {
		page.Marker, page.HasMarker = sa, true
	}
	prefix := gofakes3.Prefix{Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter")}
	prefix.HasPrefix, prefix.HasDelimiter = prefix.Prefix != "", prefix.Delimiter != ""
	objs, err := s.Backend.ListBucket(bucket, &prefix, page)
	if err != nil {
		// S3's own answer to a missing bucket (NoSuchBucket, 404), which
		// callers name; anything else is the server's fault.
		status, code := http.StatusInternalServerError, "InternalError"
		if gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchBucket) {
			status, code = http.StatusNotFound, string(gofakes3.ErrNoSuchBucket)
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message><BucketName>%s</BucketName></Error>`,
			code, s3Text(err.Error()), s3Text(bucket))
		return
	}
	if s.ignoreEncoding.Load() {
		enc = ""
	}
	text := s3Text
	if enc == "url" {
		text = func(v string) string { return s3Text(url.QueryEscape(v)) }
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	fmt.Fprintf(&b, "<Name>%s</Name><Prefix>%s</Prefix>", s3Text(bucket), text(prefix.Prefix))
	if prefix.Delimiter != "" {
		fmt.Fprintf(&b, "<Delimiter>%s</Delimiter>", text(prefix.Delimiter))
	}
	if enc != "" {
		fmt.Fprintf(&b, "<EncodingType>%s</EncodingType>", enc)
	}
	fmt.Fprintf(&b, "<MaxKeys>%d</MaxKeys><KeyCount>%d</KeyCount><IsTruncated>%t</IsTruncated>",
		maxKeys, len(objs.Contents)+len(objs.CommonPrefixes), objs.IsTruncated)
	if tok := q.Get("continuation-token"); tok != "" {
		fmt.Fprintf(&b, "<ContinuationToken>%s</ContinuationToken>", s3Text(tok))
	}
	if objs.IsTruncated && objs.NextMarker != "" {
		fmt.Fprintf(&b, "<NextContinuationToken>%s</NextContinuationToken>",
			base64.URLEncoding.EncodeToString([]byte(objs.NextMarker)))
	}
	for _, c := range objs.Contents {
		fmt.Fprintf(&b, "<Contents><Key>%s</Key><LastModified>%s</LastModified><ETag>%s</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>",
			text(c.Key), c.LastModified.UTC().Format(time.RFC3339Nano), s3Text(c.ETag), c.Size)
	}
	for _, p := range objs.CommonPrefixes {
		fmt.Fprintf(&b, "<CommonPrefixes><Prefix>%s</Prefix></CommonPrefixes>", text(p.Prefix))
	}
	b.WriteString("</ListBucketResult>")
	w.Header().Set("Content-Type", "application/xml")
	_, _ = w.Write([]byte(b.String()))
}

// s3Text escapes text as S3 does: the XML specials as entities, and any
// character below U+0020 as a numeric reference (&#x1;), even those that
// XML 1.0 does not allow.
func s3Text(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&apos;")
		case r < 0x20:
			fmt.Fprintf(&b, "&#x%X;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// IgnoreEncodingType makes listings ignore encoding-type, as some
// S3-compatible stores do: keys are sent as they are.
func (s *S3) IgnoreEncodingType(on bool) { s.ignoreEncoding.Store(on) }
